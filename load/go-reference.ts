// The `go` scenario's server: load/go-fasthttp/main.go, built offline against Debian's packaged
// fasthttp and started like the other servers (it announces itself with the same log line).

import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { startListening, type ServerProcess } from '../test/helpers/server-process.ts';
import { which } from './proc.ts';

export const GO_PACKAGES = 'apt-get install golang-go golang-github-valyala-fasthttp-dev';
/** Where Debian's golang-*-dev packages put their sources (GOPATH layout). */
const DEBIAN_GOPATH = '/usr/share/gocode';
const SOURCE = new URL('go-fasthttp/', import.meta.url).pathname;

/** Builds the Go server into `dir`: its binary, or why it cannot be built here. */
export async function buildGoReference(dir: string): Promise<{ binary: string } | { missing: string }> {
  const go = which('go');
  if (go === null) return { missing: `go is not installed (${GO_PACKAGES})` };
  const gopath = [...(process.env.GOPATH ?? '').split(delimiter).filter((p) => p !== ''), DEBIAN_GOPATH];
  if (!gopath.some((p) => existsSync(join(p, 'src/github.com/valyala/fasthttp'))))
    return { missing: `no fasthttp source under ${gopath.join(delimiter)} (${GO_PACKAGES})` };
  const binary = join(dir, 'go-fasthttp');
  // GOPATH mode: the packaged sources are the only ones; nothing is fetched (GOPROXY=off).
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? tmpdir(),
    GOPATH: gopath.join(delimiter),
    GO111MODULE: 'off',
    GOFLAGS: '',
    GOPROXY: 'off',
    GOTOOLCHAIN: 'local',
    CGO_ENABLED: '0',
    // Kept between runs: a cold build of fasthttp takes ~7 s of CPU, a warm one a fraction of that.
    GOCACHE: process.env.GOCACHE ?? join(tmpdir(), 'shortener-load-go-cache'),
  };
  const child = spawn(go, ['build', '-o', binary, '.'], { cwd: SOURCE, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  return code === 0 ? { binary } : { missing: `go build failed: ${out.trim().split('\n').slice(0, 3).join(' ')}` };
}

/** The file the Go server reads its links from: one `code url` line each. */
export function writeLinksFile(file: string, links: readonly (readonly [string, string])[]): void {
  writeFileSync(file, links.map(([code, url]) => `${code} ${url}\n`).join(''));
}

/** Starts the built server (under `prefix`, e.g. taskset) on a free port and waits until it listens. */
export async function startGoReference(
  binary: string,
  env: Record<string, string>,
  prefix: readonly string[],
  timeoutMs = 30_000,
): Promise<ServerProcess> {
  return startListening([...prefix, binary], { PORT: '0', ...env }, timeoutMs, 'the Go server');
}
