// The console's UI strings in English and Chinese. The language follows the
// browser (navigator.language) unless the user picks one; answers and
// documents are shown as they are.
import { createContext, useContext } from 'react';

const en = {
  appName: 'ragchat',
  conversations: 'Conversations',
  newConversation: 'New conversation',
  loadMore: 'Load more',
  loadOlder: 'Load older messages',
  rename: 'Rename',
  archive: 'Archive',
  delete: 'Delete',
  undo: 'Undo',
  deleted: 'Conversation deleted.',
  archived: 'Archived',
  expired: 'Expired',
  ask: 'Send',
  askPlaceholder: 'Ask a question (Enter sends, Shift+Enter adds a line)',
  stop: 'Stop',
  retry: 'Retry',
  retries: 'Attempts',
  attemptN: (n: number) => `Attempt ${n}`,
  regenerate: 'Regenerate',
  edit: 'Edit',
  saveEdit: 'Send the edit',
  cancelEdit: 'Cancel',
  editLabel: 'Edit the question (Enter sends, Shift+Enter adds a line, Esc cancels)',
  versions: 'Versions',
  previousVersion: 'Previous version',
  nextVersion: 'Next version',
  versionOf: (n: number, m: number) => `Version ${n} of ${m}`,
  sources: 'Sources',
  noSources: 'No sources for this answer.',
  noLongerAvailable: 'No longer available',
  moreSources: (n: number) => `More sources (${n} retrieved, not cited)`,
  busySend: 'An answer is being generated in this conversation; Send comes back when it ends.',
  showRunningAnswer: 'Show the running answer',
  rateLimitedSend: (s: number) => `Send is back in ${s} s; your draft is kept.`,
  rewritten: 'Searched as',
  helpful: 'Helpful',
  notHelpful: 'Not helpful',
  feedbackComment: 'Comment (optional)',
  sendFeedback: 'Send feedback',
  feedbackThanks: 'Thanks for the feedback.',
  generating: 'Generating the answer…',
  reconnecting: 'Connection lost; reconnecting…',
  failed: (code: string) => `The answer failed (${code}).`,
  cancelled: 'Stopped.',
  pickConversation: 'Pick a conversation or start a new one.',
  signIn: 'Sign in',
  signOut: 'Sign out',
  signInAs: 'Sign in as',
  devSignIn: 'Development sign-in: the demo tenant’s users. Tokens last one hour.',
  oidcSignIn: 'Sign in with your organisation',
  noSignIn: 'No sign-in method is configured on this server.',
  admin: 'Admin',
  chat: 'Chat',
  language: '中文',
  errors: {
    busy: 'An answer is still being generated in this conversation. Wait for it or stop it.',
    rateLimited: (s: number) => `Too many questions. Try again in ${s} s.`,
    signIn: 'Your session has expired. Sign in again; your draft is kept.',
    forbidden: 'You are not allowed to see this. Ask an administrator.',
    notFound: 'Not found.',
    badInput: 'The input was refused.',
    archived: 'This conversation is archived (read-only).',
    expired: 'This conversation has expired.',
    conflict: 'Someone changed this at the same time; reload and try again.',
    unavailable: 'The service is unavailable right now. Try again shortly.',
    internal: 'Something went wrong.',
  },
};

export type Strings = typeof en;

const zh: Strings = {
  appName: 'ragchat',
  conversations: '会话',
  newConversation: '新建会话',
  loadMore: '加载更多',
  loadOlder: '加载更早的消息',
  rename: '重命名',
  archive: '归档',
  delete: '删除',
  undo: '撤销',
  deleted: '会话已删除。',
  archived: '已归档',
  expired: '已过期',
  ask: '发送',
  askPlaceholder: '输入问题（Enter 发送，Shift+Enter 换行）',
  stop: '停止',
  retry: '重试',
  retries: '回答记录',
  attemptN: (n: number) => `第 ${n} 次回答`,
  regenerate: '重新生成',
  edit: '编辑',
  saveEdit: '发送修改',
  cancelEdit: '取消',
  editLabel: '修改问题（Enter 发送，Shift+Enter 换行，Esc 取消）',
  versions: '版本',
  previousVersion: '上一个版本',
  nextVersion: '下一个版本',
  versionOf: (n: number, m: number) => `第 ${n} 个版本，共 ${m} 个`,
  sources: '来源',
  noSources: '此回答没有来源。',
  noLongerAvailable: '已不可用',
  moreSources: (n: number) => `更多来源（已检索但未引用 ${n} 条）`,
  busySend: '此会话正在生成回答，结束后即可发送。',
  showRunningAnswer: '查看正在生成的回答',
  rateLimitedSend: (s: number) => `${s} 秒后可再次发送，草稿已保留。`,
  rewritten: '检索问题',
  helpful: '有帮助',
  notHelpful: '没有帮助',
  feedbackComment: '意见（可选）',
  sendFeedback: '提交反馈',
  feedbackThanks: '感谢反馈。',
  generating: '正在生成回答…',
  reconnecting: '连接中断，正在重连…',
  failed: (code: string) => `回答失败（${code}）。`,
  cancelled: '已停止。',
  pickConversation: '选择一个会话，或新建会话。',
  signIn: '登录',
  signOut: '退出',
  signInAs: '登录为',
  devSignIn: '开发环境登录：演示租户的用户。令牌有效期一小时。',
  oidcSignIn: '使用单位账号登录',
  noSignIn: '此服务器未配置登录方式。',
  admin: '管理',
  chat: '对话',
  language: 'English',
  errors: {
    busy: '此会话正在生成回答。请等待或停止它。',
    rateLimited: (s: number) => `提问过于频繁，请 ${s} 秒后再试。`,
    signIn: '登录已过期。请重新登录，草稿会保留。',
    forbidden: '你无权查看此内容，请联系管理员。',
    notFound: '未找到。',
    badInput: '输入被拒绝。',
    archived: '此会话已归档（只读）。',
    expired: '此会话已过期。',
    conflict: '内容已被同时修改，请刷新后重试。',
    unavailable: '服务暂时不可用，请稍后再试。',
    internal: '出错了。',
  },
};

export type Lang = 'en' | 'zh';

/** The strings of a language. */
export function strings(lang: Lang): Strings {
  return lang === 'zh' ? zh : en;
}

/** The language to start with: the saved choice, else the browser's. */
export function initialLang(): Lang {
  const saved = localStorage.getItem('ragchat.lang');
  if (saved === 'en' || saved === 'zh') return saved;
  return navigator.language.toLowerCase().startsWith('zh') ? 'zh' : 'en';
}

export const I18n = createContext<{ t: Strings; lang: Lang; setLang: (l: Lang) => void }>({
  t: en,
  lang: 'en',
  setLang: () => {},
});

/** The current strings. */
export function useT(): Strings {
  return useContext(I18n).t;
}
