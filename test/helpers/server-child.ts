// A server process a test helper started (redis-server, postgres): its last output, for error
// messages, and its exit, which a failed spawn reports as an 'error' without any 'exit'.

import type { ChildProcess } from 'node:child_process';
import type net from 'node:net';

export interface WatchedChild {
  /** Resolves when the process is gone. */
  readonly exited: Promise<void>;
  /** Whether it is gone already. */
  hasExited(): boolean;
  /** The last 4000 characters it wrote (and the spawn error, if any). */
  output(): string;
}

/**
 * Watches `child`; `gone` runs once when it ends. The process and its pipes are unref'd: a server
 * a test forgot to stop must not keep the test process alive (the helpers' exit hooks end it).
 */
export function watchChild(child: ChildProcess, gone: () => void): WatchedChild {
  let output = '';
  let exited = false;
  const keep = (text: string) => {
    output = (output + text).slice(-4000);
  };
  child.stdout?.on('data', (chunk: Buffer) => keep(chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => keep(chunk.toString()));
  const done = new Promise<void>((resolve) => {
    const end = () => {
      if (exited) return;
      exited = true;
      gone();
      resolve();
    };
    child.once('exit', end);
    child.once('error', (error) => {
      keep(String(error));
      end();
    });
  });
  child.unref();
  for (const stream of [child.stdout, child.stderr]) (stream as net.Socket | null)?.unref();
  return { exited: done, hasExited: () => exited, output: () => output };
}
