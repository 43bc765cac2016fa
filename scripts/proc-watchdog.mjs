// Outlives a test process to kill what it started once it is gone, however it went
// (SIGKILL included, where no exit hook of its own runs). Started detached by
// test/helpers/procs.ts and by scripts/run-tests.mjs:
//   node scripts/proc-watchdog.mjs PARENT_PID NAME=VALUE [PGID]
// The parent holds our stdin open; its death closes it (and re-parents us), and then
// every process whose environment carries NAME=VALUE is killed, and the group PGID
// if given. The process tree's own markers are not in our environment, so the
// sweep never finds us.
import { sweep } from './proc-sweep.mjs';

const [parentText, marker, pgidText] = process.argv.slice(2);
const parent = Number(parentText);
if (!Number.isInteger(parent) || !marker?.includes('=')) {
  console.error('usage: proc-watchdog.mjs PARENT_PID NAME=VALUE [PGID]');
  process.exit(2);
}

let done = false;
function parentGone() {
  if (done) return;
  done = true;
  if (pgidText) {
    try {
      process.kill(-Number(pgidText), 'SIGKILL');
    } catch {
      // the group is already empty
    }
  }
  sweep(marker);
  process.exit(0);
}

process.stdin.on('data', () => undefined);
process.stdin.on('end', parentGone);
process.stdin.on('close', parentGone);
process.stdin.on('error', parentGone);
// A fallback should the pipe stay open somewhere: once re-parented, the parent is dead.
setInterval(() => process.ppid !== parent && parentGone(), 500);
