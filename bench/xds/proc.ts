// The bench parent's view of a child process: typed commands out, typed replies
// in, each awaited with a cap. Every child is tracked so a failed run leaves no
// process behind.
import type { ChildProcess } from 'node:child_process';

export class Proc<Cmd, Reply extends { kind: string }> {
  private readonly queue: Reply[] = [];
  private readonly waiters: { pred: (r: Reply) => boolean; resolve: (r: Reply) => void }[] = [];
  constructor(
    readonly child: ChildProcess,
    readonly label: string,
  ) {
    track(child);
    child.on('message', (m: Reply) => {
      if ((m as { kind: string }).kind === 'error')
        console.error(`${label}: ${(m as unknown as { message: string }).message}`);
      const i = this.waiters.findIndex((w) => w.pred(m));
      if (i >= 0) this.waiters.splice(i, 1)[0]!.resolve(m);
      else this.queue.push(m);
    });
    child.on('exit', (code) => {
      if (code) console.error(`${label} exited with ${code}`);
    });
  }
  send(c: Cmd) {
    this.child.send(c as object);
  }
  next<K extends Reply['kind']>(
    kind: K,
    pred: (r: Extract<Reply, { kind: K }>) => boolean = () => true,
    capMs = 300_000,
  ): Promise<Extract<Reply, { kind: K }>> {
    const match = (r: Reply) => r.kind === kind && pred(r as Extract<Reply, { kind: K }>);
    const i = this.queue.findIndex(match);
    if (i >= 0) return Promise.resolve(this.queue.splice(i, 1)[0] as Extract<Reply, { kind: K }>);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${this.label}: no ${kind} within ${capMs} ms`)), capMs);
      this.waiters.push({
        pred: match,
        resolve: (r) => {
          clearTimeout(timer);
          resolve(r as Extract<Reply, { kind: K }>);
        },
      });
    });
  }
  exited(): Promise<unknown> {
    return new Promise((res) => (this.child.exitCode !== null ? res(null) : this.child.once('exit', res)));
  }
}

const children = new Set<ChildProcess>();
function track(child: ChildProcess): void {
  children.add(child);
  child.once('exit', () => children.delete(child));
}

/** Leave no server or client processes behind. */
export function killAll(): void {
  for (const c of children) c.kill('SIGKILL');
}
