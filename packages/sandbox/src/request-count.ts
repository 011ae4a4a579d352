/**
 * How many API requests the sandbox answered, per server (the guild of the key that made them):
 * the test API an end-to-end story reads to prove an action cost no upstream request (the bot's
 * own metrics say what it sent; this says what arrived). Requests without a valid key count under
 * `total()` only. Counted when the response is sent, whatever its status.
 */
export class RequestCount {
  private readonly byGuild = new Map<string, number>();
  private all = 0;

  record(guildId: string | undefined): void {
    this.all += 1;
    if (guildId !== undefined) this.byGuild.set(guildId, (this.byGuild.get(guildId) ?? 0) + 1);
  }

  /** Requests answered so far: those made with `guildId`'s keys, or every one. */
  total(guildId?: string): number {
    return guildId === undefined ? this.all : (this.byGuild.get(guildId) ?? 0);
  }
}
