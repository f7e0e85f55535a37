// The fake OpenAI-compatible model (internal/tools/fakemodel, serving
// internal/llm/llmfake) as a process, for browser tests that must decide
// when an answer goes on: hold(k) keeps every answer before its chunk k
// (the running ones included) until release(), so that a test can cut a
// WebSocket or press Stop while the answer is certain to be running,
// instead of hoping that it still is. A console on it answers every
// question with the same Chinese text citing [C1].
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { goBinary } from '../../clients/node/lib/gobin.js';
import { patience } from './harness.js';

/**
 * Builds and starts the fake model. Returns { env, hold(k), release(),
 * waitHeld(n), stop() }: env points a ragchat server at it (with model
 * timeouts longer than any hold).
 */
export async function startFakeModel() {
  const bin = goBinary('./internal/tools/fakemodel');
  const child = spawn(bin, [], { stdio: ['ignore', 'pipe', 'inherit'] });
  const { url, control } = await new Promise((resolveAddr, reject) => {
    const timer = setTimeout(() => reject(new Error('the fake model did not start')), patience);
    child.on('exit', (code) => reject(new Error(`fakemodel exited with ${code}`)));
    createInterface({ input: child.stdout }).once('line', (line) => {
      clearTimeout(timer);
      resolveAddr(JSON.parse(line));
    });
  });
  const call = async (method, path) => {
    const res = await fetch(`${control}${path}`, { method, signal: AbortSignal.timeout(patience) });
    if (!res.ok) throw new Error(`fakemodel ${method} ${path}: ${res.status} ${await res.text()}`);
    return res.status === 204 ? null : res.json();
  };
  return {
    env: {
      OPENAI_BASE_URL: url,
      OPENAI_API_KEY: 'e2e',
      OPENAI_CHAT_MODEL: 'fake-model',
      // A held answer sends nothing; it must not time out meanwhile.
      RAGCHAT_MODEL_TIMEOUT: '10m',
      RAGCHAT_MODEL_IDLE_TIMEOUT: '10m',
    },
    /** Answers, the running ones included, wait before their chunk k. */
    hold: (k) => call('POST', `/hold?at=${k}`),
    /** Held answers go on; later ones are not held. */
    release: () => call('POST', '/release'),
    /** Waits until at least n answers are held at the gate. */
    waitHeld: (n = 1) => call('GET', `/held?atLeast=${n}`),
    async stop() {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
