/**
 * The docs clock: one made-up timeline that this process (sandbox, emulator, playground server)
 * and the bot process share, so every time a guide picture shows is the same on every run.
 *
 * Times reach a picture from three places: the sandbox (seeded posts, a new feed's `creado`, the
 * rate-limit reset), the emulator (each message's timestamp) and the bot itself (when a key was
 * set, when a confirmation expires, how old a feed's last post is). None of them takes a clock
 * from outside, so `Date` itself is replaced in both processes (the page gets Chromium's own fixed
 * clock). Nothing in the bot changes: its process only gets one `--import` in NODE_OPTIONS.
 *
 * Each story starts at its own instant (whole minutes) and time then runs at normal speed, so
 * deadlines, retries and rate-limit windows behave as they do in production while the minutes a
 * picture shows do not depend on how fast the machine is. Time only ever moves forward.
 */
import { writeFileSync } from 'node:fs';

export interface ClockState {
  /** The made-up time at `realAt`, in ms since the epoch. */
  virtualAt: number;
  /** The real time (Date.now before the patch) the state was set at. */
  realAt: number;
  /** Made-up milliseconds per real millisecond: 1 during stories, tiny while the demo starts. */
  rate: number;
}

/** The log line the bot process prints once it has read a new state (its acknowledgement). */
export const CLOCK_ACK = 'docs clock set';

/**
 * Replaces `Date` in the running process by one that reads the made-up time; returns a setter
 * for the next state. With `stateFile`, SIGUSR2 re-reads the state from that file and prints a
 * CLOCK_ACK JSON line. Self-contained (no imports, nothing from outside its body) because the bot
 * process receives it as source text (botPreload); instances made before the patch still pass
 * `instanceof Date`.
 */
export function installDocsClock(initial: ClockState, stateFile?: string): (next: ClockState) => void {
  const RealDate = Date;
  const realNow = RealDate.now.bind(RealDate);
  let state = initial;
  const now = () => Math.floor(state.virtualAt + (realNow() - state.realAt) * state.rate);
  const FakeDate = new Proxy(RealDate, {
    construct: (target, args: unknown[], newTarget) => Reflect.construct(target, args.length ? args : [now()], newTarget) as object,
    apply: () => new RealDate(now()).toString(),
    get: (target, property, receiver) => (property === 'now' ? now : Reflect.get(target, property, receiver)),
  });
  globalThis.Date = FakeDate;
  if (stateFile) {
    const fs = process.getBuiltinModule('node:fs');
    process.on('SIGUSR2', () => {
      state = JSON.parse(fs.readFileSync(stateFile, 'utf8')) as ClockState;
      process.stdout.write(`${JSON.stringify({ msg: 'docs clock set', virtualAt: state.virtualAt })}\n`);
    });
  }
  return (next) => {
    state = next;
  };
}

/** installDocsClock as source text; tsx's name-keeping helper is stubbed (the text is tsx's output). */
function installerSource(): string {
  return `const __name = (f) => f;\nconst installDocsClock = ${installDocsClock.toString()};\n`;
}

/**
 * NODE_OPTIONS for a child process that must share the clock: installDocsClock as an inline
 * module, reading its first state from `stateFile`.
 */
export function botPreload(stateFile: string): string {
  const file = JSON.stringify(stateFile);
  const source = `${installerSource()}installDocsClock(JSON.parse(process.getBuiltinModule('node:fs').readFileSync(${file}, 'utf8')), ${file});\n`;
  return `--import=data:text/javascript;base64,${Buffer.from(source).toString('base64')}`;
}

/** A state that stands still at `at` (the page's: its timers keep running, only `Date` is fixed). */
export const fixedAt = (at: number): ClockState => ({ virtualAt: at, realAt: 0, rate: 0 });

/**
 * The page's clock, as a script run before the page's own: `Date` fixed at `at`, moved with
 * `window.__setDocsClock(fixedAt(…))`. Chromium's clock emulation (Playwright's page.clock) is not
 * used: it also fakes timers, against this process's made-up time.
 */
export function pageClockScript(at: number): string {
  return `${installerSource()}window.__setDocsClock = installDocsClock(${JSON.stringify(fixedAt(at))});\n`;
}

/** The clock of this process and of the processes it starts, moved story by story. */
export class DocsClock {
  private readonly set: (next: ClockState) => void;
  /** The machine's own clock, kept from before the patch. */
  private readonly realNow = Date.now.bind(Date);
  private current: ClockState;

  /** Installs the clock here, starting at `start` and running `startupRate` times real speed. */
  constructor(
    start: number,
    private readonly stateFile: string,
    startupRate: number,
  ) {
    this.current = { virtualAt: start, realAt: this.realNow(), rate: startupRate };
    this.save();
    this.set = installDocsClock(this.current);
  }

  /** NODE_OPTIONS entry for processes started from now on. */
  get preload(): string {
    return botPreload(this.stateFile);
  }

  now(): number {
    return Date.now();
  }

  /**
   * Moves the timeline to `at` (never back: a story that ran past the next story's instant would
   * make the pictures depend on the machine's speed) and runs it at real speed from there.
   */
  moveTo(at: number): void {
    const now = this.now();
    if (at < now) throw new Error(`the docs clock cannot go back from ${new Date(now).toISOString()} to ${new Date(at).toISOString()}: a story took longer than its slot`);
    this.current = { virtualAt: at, realAt: this.realNow(), rate: 1 };
    this.save();
    this.set(this.current);
  }

  private save(): void {
    writeFileSync(this.stateFile, JSON.stringify(this.current));
  }
}
