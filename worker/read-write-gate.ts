/**
 * Many readers at once or one writer alone, granted in arrival order: a writer waits for the readers
 * before it, and readers that arrive after a writer wait for it. The engine's generations are readers;
 * load and unload are writers.
 */
type Waiter = { writer: boolean; grant: () => void };

export class ReadWriteGate {
  private readers = 0;
  private writing = false;
  private readonly queue: Waiter[] = [];

  /** Runs `work` beside other readers. */
  read<T>(work: () => Promise<T>): Promise<T> {
    return this.hold(false, work);
  }

  /** Runs `work` alone. */
  write<T>(work: () => Promise<T>): Promise<T> {
    return this.hold(true, work);
  }

  private async hold<T>(writer: boolean, work: () => Promise<T>): Promise<T> {
    await new Promise<void>((grant) => {
      this.queue.push({ writer, grant });
      this.admit();
    });
    try {
      return await work();
    } finally {
      if (writer) this.writing = false;
      else this.readers--;
      this.admit();
    }
  }

  private admit(): void {
    while (this.queue.length > 0 && !this.writing) {
      const head = this.queue[0]!;
      if (head.writer && this.readers > 0) return;
      this.queue.shift();
      if (head.writer) this.writing = true;
      else this.readers++;
      head.grant();
    }
  }
}
