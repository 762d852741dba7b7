/**
 * Lookups asked for in one turn of the event loop answered by one statement: on PostgreSQL every request's
 * token lookup is otherwise a round trip of its own. The statement is sent after the turn, so it starts after
 * every request it answers arrived and sees everything committed before any of them (a token revoked by another
 * replica fails at the next request, as with a lookup of its own).
 */
export class TurnLookup<Row> {
  private pending = new Map<string, { key: Buffer; waiters: Array<{ resolve: (row: Row | undefined) => void; reject: (error: unknown) => void }> }>();
  private scheduled = false;

  constructor(
    /** Rows for these keys (at most one each); `keyOf` says which key a row answers. */
    private readonly fetch: (keys: Buffer[]) => Promise<Row[]>,
    private readonly keyOf: (row: Row) => Buffer,
  ) {}

  get(key: Buffer): Promise<Row | undefined> {
    return new Promise((resolve, reject) => {
      const id = key.toString('hex');
      let entry = this.pending.get(id);
      if (entry === undefined) {
        entry = { key, waiters: [] };
        this.pending.set(id, entry);
      }
      entry.waiters.push({ resolve, reject });
      if (this.scheduled) return;
      this.scheduled = true;
      setImmediate(() => void this.flush());
    });
  }

  private async flush(): Promise<void> {
    this.scheduled = false;
    const batch = this.pending;
    this.pending = new Map();
    try {
      const rows = await this.fetch([...batch.values()].map((entry) => entry.key));
      const byKey = new Map(rows.map((row) => [this.keyOf(row).toString('hex'), row]));
      for (const [id, entry] of batch) for (const waiter of entry.waiters) waiter.resolve(byKey.get(id));
    } catch (error) {
      for (const entry of batch.values()) for (const waiter of entry.waiters) waiter.reject(error);
    }
  }
}
