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
  readonly exited: Promise<ExitResult>;

  constructor(readonly members: readonly BotProcess[]) {
    if (members.length === 0) throw new Error('a bot group needs at least one process');
    this.exited = Promise.all(members.map((m) => m.exited)).then((results) => worst(results));
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
