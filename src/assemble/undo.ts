// What started so far, undone in reverse if a later step fails (e.g. a port in use).
export class Undo {
  private readonly steps: Array<() => unknown> = [];
  push(step: () => unknown): void {
    this.steps.push(step);
  }
  async unwind(): Promise<void> {
    for (const step of this.steps.reverse()) await Promise.resolve(step()).catch(() => undefined);
    this.steps.length = 0;
  }
}
