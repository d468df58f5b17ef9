// What the suite reads about processes and CPUs from Linux's /proc, and where it finds the
// commands it may run (wrk, go, taskset).

import { accessSync, constants, readdirSync, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** USER_HZ: 100 on every Linux that Node supports. */
const CLOCK_TICKS = 100;

/** [ppid, utime + stime in ticks] of a process; undefined when it is gone. */
function stat(pid: number | string): [number, number] | undefined {
  try {
    // Fields after the command name (which may hold spaces): ppid is the 2nd, utime and stime the 12th and 13th.
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return [Number(fields[1]), Number(fields[11]) + Number(fields[12])];
  } catch {
    return undefined;
  }
}

/**
 * User + system CPU seconds of a process and of its live descendants (the workers of a cluster
 * primary), from /proc (Linux); null elsewhere or when the process is gone.
 */
export function cpuSeconds(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  const own = stat(pid);
  if (own === undefined) return null;
  let ticks = own[1];
  let children: Map<number, number[]> | undefined;
  const parents = () => {
    children = new Map();
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      const s = stat(entry);
      if (s === undefined) continue;
      const list = children.get(s[0]);
      if (list) list.push(Number(entry));
      else children.set(s[0], [Number(entry)]);
    }
    return children;
  };
  const queue = [...(parents().get(pid) ?? [])];
  for (let next = queue.pop(); next !== undefined; next = queue.pop()) {
    ticks += stat(next)?.[1] ?? 0;
    queue.push(...(children?.get(next) ?? []));
  }
  return ticks / CLOCK_TICKS;
}

/** "0-2,5" → [0, 1, 2, 5]. */
export function parseCpuList(list: string): number[] {
  const cpus = new Set<number>();
  for (const part of list.split(',')) {
    const [from, to] = part.trim().split('-').map(Number);
    if (from === undefined || !Number.isInteger(from)) throw new Error(`not a CPU list: "${list}"`);
    for (let cpu = from; cpu <= (to ?? from); cpu++) cpus.add(cpu);
  }
  return [...cpus].sort((a, b) => a - b);
}

/** The CPUs this process may run on (its affinity), or null off Linux. */
export function ownCpus(): number[] | null {
  try {
    const list = /^Cpus_allowed_list:\s*(\S+)/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
    return list === undefined ? null : parseCpuList(list);
  } catch {
    return null;
  }
}

/** The path of an executable `name` on the PATH, or null. */
export function which(name: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue;
    const path = join(dir, name);
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {
      // not here
    }
  }
  return null;
}
