import{n as e}from"./rolldown-runtime-6EMuh_P4.js";import{a as t,d as n,r,t as i,u as a}from"./jsx-runtime-BQiYiWY0.js";import{r as o}from"./react-C99j_x4b.js";import{c as s,f as c,l,n as u,p as d,r as f}from"./web-BJDqdvkA.js";async function p(e){let t=r();return(await(await fetch(`/graphql`,{method:`POST`,headers:{"Content-Type":`application/json`,...t?{Authorization:`Bearer ${t}`}:{}},body:JSON.stringify({query:n(_),variables:{token:e}})})).json()).data?.sharedConversation??null}function m({token:e}){let t=d(),[n,r]=(0,h.useState)({share:null,done:!1});if((0,h.useEffect)(()=>{let t=!0;return p(e).catch(()=>null).then(e=>t&&r({share:e,done:!0})),()=>{t=!1}},[e]),!n.done)return(0,g.jsx)(`p`,{className:`muted`,children:`…`});let i=n.share;return i?(0,g.jsxs)(`main`,{className:`share`,"data-testid":`share`,children:[(0,g.jsx)(`p`,{className:`muted`,children:t.sharedConversation}),(0,g.jsx)(`h1`,{children:i.title}),i.messages.map((e,n)=>(0,g.jsxs)(`section`,{className:e.role===`USER`?`turn question`:`turn answer`,"data-role":e.role,"data-withheld":e.withheld?`true`:void 0,children:[e.role===`USER`?(0,g.jsx)(`p`,{className:`question-text`,children:e.content}):e.withheld?(0,g.jsx)(`p`,{className:`muted withheld`,children:t.answerWithheld}):(0,g.jsx)(u,{text:e.content,sourceAnchor:e=>`share-${n}-${e}`}),e.sources.length>0&&(0,g.jsx)(`ol`,{className:`sources`,"aria-label":t.sharedSources,children:e.sources.map(e=>(0,g.jsxs)(`li`,{id:`share-${n}-${e.label}`,"data-available":e.available?`true`:`false`,children:[(0,g.jsxs)(`strong`,{children:[`[`,e.label,`]`]}),` `,e.available?(0,g.jsxs)(g.Fragment,{children:[(0,g.jsx)(`span`,{className:`source-title`,children:e.title}),(0,g.jsx)(`blockquote`,{children:e.snippet})]}):(0,g.jsx)(`span`,{className:`muted`,children:t.sourceUnavailable})]},e.label))})]},n))]}):(0,g.jsx)(`main`,{className:`share`,"data-testid":`share`,children:(0,g.jsx)(`p`,{role:`alert`,children:t.shareNotFound})})}var h,g,_;function v(){return(v=e((()=>{h=o(),a(),s(),t(),c(),f(),g=i(),_=l(`
  query SharedConversation($token: String!) {
    sharedConversation(token: $token) {
      title
      messages {
        role
        content
        createdAt
        sources {
          label
          cited
          available
          title
          snippet
        }
        withheld
        withheldReason
      }
    }
  }
`)})))()}v();export{_ as SharedConversationDoc,m as default};