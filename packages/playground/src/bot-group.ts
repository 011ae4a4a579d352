/**
 * Several bot processes seen as one (HTTP-interaction replicas behind a load balancer): their log
 * lines together, a signal to all, stopped together. Has the surface of one BotProcess, so the
 * same stories run against one process or against replicas.
 */
import type { ChildProcess } from 'node:child_process';
import type { BotProcess, LogLine } from './stack.js';

export type ExitResult = { code: number | null; signal: NodeJS.Signals | null };

/** What a test or the demo uses of a running bot, one process or several. */
export interface RunningBot {
  readonly lines: LogLine[];
  readonly stderr: string[];
  readonly exited: Promise<ExitResult>;
  readonly running: boolean;
  /** The (first) process. */
  readonly child: ChildProcess;
  waitForLog(predicate: (line: LogLine) => boolean, timeoutMs?: number): Promise<LogLine>;
  kill(signal: NodeJS.Signals): void;
  stop(timeoutMs?: number): Promise<ExitResult>;
}

export class BotGroup implements RunningBot {
  private readonly current: BotProcess[];

  /** `respawn(i)` starts member i again as it was first started (restartMember). */
  constructor(
    members: readonly BotProcess[],
    private readonly respawn?: (index: number) => BotProcess,
  ) {
    if (members.length === 0) throw new Error('a bot group needs at least one process');
    this.current = [...members];
  }

  get members(): readonly BotProcess[] {
    return this.current;
  }

  /** Once every current member has exited (a restarted member counts, not the one it replaced). */
  get exited(): Promise<ExitResult> {
    return Promise.all(this.current.map((m) => m.exited)).then((results) => worst(results));
  }

  /** Starts member `index` again after it exited (killed, crashed); resolves once it logs `ready`. */
  async restartMember(index: number, timeoutMs = 30_000): Promise<BotProcess> {
    const old = this.current[index];
    if (!old || !this.respawn) throw new Error(`no member ${index} to restart`);
    if (old.running) throw new Error(`member ${index} is still running`);
    const bot = this.respawn(index);
    this.current[index] = bot;
    await bot.waitForLog((l) => l.msg === 'ready', timeoutMs);
    return bot;
  }

  /**
   * Member `index` is `bot` from now on: its replacement, started beside it during a rolling
   * restart (Stack.rollReplica). Returns the member it replaced, whose lines leave `lines`.
   */
  replaceMember(index: number, bot: BotProcess): BotProcess {
    const old = this.current[index];
    if (!old) throw new Error(`no member ${index} to replace`);
    this.current[index] = bot;
    return old;
  }

  get lines(): LogLine[] {
    return this.members.flatMap((m) => m.lines);
  }

  get stderr(): string[] {
    return this.members.flatMap((m) => m.stderr);
  }

  get running(): boolean {
    return this.members.some((m) => m.running);
  }

  get child(): ChildProcess {
    return this.members[0]!.child;
  }

  /** The first matching line of any member. */
  waitForLog(predicate: (line: LogLine) => boolean, timeoutMs = 10_000): Promise<LogLine> {
    return Promise.any(this.members.map((m) => m.waitForLog(predicate, timeoutMs))).catch((error: AggregateError) => {
      throw error.errors[0] as Error;
    });
  }

  /** Resolves once every member logged a matching line. */
  async waitForEach(predicate: (line: LogLine) => boolean, timeoutMs = 10_000): Promise<void> {
    await Promise.all(this.members.map((m) => m.waitForLog(predicate, timeoutMs)));
  }

  kill(signal: NodeJS.Signals): void {
    for (const m of this.members) m.kill(signal);
  }

  async stop(timeoutMs?: number): Promise<ExitResult> {
    return worst(await Promise.all(this.members.map((m) => m.stop(timeoutMs))));
  }
}

/** One result for the group: the first member that did not exit 0, else the first. */
function worst(results: ExitResult[]): ExitResult {
  return results.find((r) => r.code !== 0) ?? results[0]!;
}
