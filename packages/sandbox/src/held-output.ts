/**
 * A log destination that holds its lines until released. `npm run sandbox` logs while it starts
 * (certificate, seed, listening), but what the operator needs first is the banner: the URL, the
 * certificate and the key. The lines are held until the banner is out, then written in order.
 */
import type { DestinationStream } from 'pino';

export interface HeldOutput extends DestinationStream {
  /** Writes what was held to `to`, and everything after it straight there. */
  release(to: { write(chunk: string): unknown }): void;
}

export function heldOutput(): HeldOutput {
  let held: string[] | undefined = [];
  let target: { write(chunk: string): unknown } | undefined;
  return {
    write(chunk: string) {
      if (held) held.push(chunk);
      else target!.write(chunk);
    },
    release(to) {
      if (!held) return;
      target = to;
      const lines = held;
      held = undefined;
      for (const line of lines) to.write(line);
    },
  };
}
