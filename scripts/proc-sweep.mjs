// Finds and kills processes by a marker in their environment (NAME=VALUE), read from
// /proc/<pid>/environ: the environment a process started with, which every child
// inherits unless it is handed a new one. Linux only (the suite runs there).
import { readdirSync, readFileSync } from 'node:fs';

/** Live processes (not zombies) started with `marker` in their environment, other than this one. */
export function findMarked(marker) {
  const out = [];
  let names;
  try {
    names = readdirSync('/proc');
  } catch {
    return out;
  }
  for (const name of names) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      if (!readFileSync(`/proc/${name}/environ`, 'latin1').split('\0').includes(marker)) continue;
      const stat = readFileSync(`/proc/${name}/stat`, 'latin1');
      // Field 3, after the parenthesised command name (which may hold spaces): the state.
      if (stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z') continue;
      const cmd = readFileSync(`/proc/${name}/cmdline`, 'latin1').split('\0').join(' ').trim();
      out.push({ pid: Number(name), cmd });
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return out;
}

/**
 * SIGKILLs every process `findMarked` finds, a few rounds over (a parent may fork
 * between the scan and its kill); returns what it killed.
 */
export function sweep(marker) {
  const killed = [];
  for (let round = 0; round < 5; round++) {
    const found = findMarked(marker);
    if (found.length === 0) break;
    for (const p of found) {
      try {
        process.kill(p.pid, 'SIGKILL');
        if (!killed.some((k) => k.pid === p.pid)) killed.push(p);
      } catch {
        // exited meanwhile
      }
    }
  }
  return killed;
}
