// The part of react-test-renderer the hook tests use (it ships no types).
declare module 'react-test-renderer' {
  import type { ReactElement } from 'react';
  export function act<T>(fn: () => T | Promise<T>): Promise<T>;
  export function create(el: ReactElement): { unmount(): void };
}
