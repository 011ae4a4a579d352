/**
 * Gateway events the bot acts on without being asked (a channel or role deleted, the bot removed
 * from a server), declared as data like commands: each feature exports a `GatewayListener`, the
 * list lives in `src/listeners.ts`, and `listenTo` subscribes them. One place owns what every
 * listener needs: a root span per event, a logger named after its feature, a last-resort catch
 * (a listener's promise never rejects unhandled), and the promises under way, so a stop waits for
 * them before the stores close.
 *
 * Gateway transport only: HTTP mode gets no gateway events.
 */
import type { Client, ClientEvents } from 'discord.js';
import type { Logger } from '../logger.js';
import { tracer, type SpanAttributes } from '../tracing/tracer.js';

export interface GatewayListener<E extends keyof ClientEvents, D extends { logger: Logger }> {
  readonly event: E;
  /** The `component` of its log lines. */
  readonly component: string;
  /** Each event runs in a root span of this name (tracing); none when absent. */
  readonly span?: string;
  attributes?(...args: ClientEvents[E]): SpanAttributes;
  /** Logs what it cannot do; a throw that escapes is logged once more by `listenTo`. */
  run(deps: D, ...args: ClientEvents[E]): Promise<unknown>;
}

// Each listener's own event and deps; the list only needs them to fit the deps it is given.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyGatewayListener<D extends { logger: Logger }> = GatewayListener<any, D>;

export interface Listening {
  /** Resolves when every event under way has been handled (before the stores close; tests). */
  settled(): Promise<void>;
  /** Unsubscribes; events under way still finish (`settled`). */
  stop(): void;
}

export function listenTo<D extends { logger: Logger }>(client: Client, listeners: readonly AnyGatewayListener<D>[], deps: D): Listening {
  const running = new Set<Promise<unknown>>();
  const subscribed = listeners.map((listener) => {
    const logger = deps.logger.child({ component: listener.component });
    const own = { ...deps, logger };
    const handle = async (...args: unknown[]) => {
      try {
        await (listener.span
          ? tracer().inSpan(listener.span, { root: true, attributes: listener.attributes?.(...args) ?? {} }, () => listener.run(own, ...args))
          : listener.run(own, ...args));
      } catch (error) {
        logger.error({ err: error, event: listener.event }, 'a gateway listener failed');
      }
    };
    const onEvent = (...args: unknown[]) => {
      const done = handle(...args).finally(() => running.delete(done));
      running.add(done);
    };
    client.on(listener.event, onEvent);
    return { event: listener.event, onEvent };
  });
  return {
    settled: async () => {
      while (running.size > 0) await Promise.all([...running]);
    },
    stop: () => {
      for (const { event, onEvent } of subscribed) client.off(event, onEvent);
    },
  };
}
