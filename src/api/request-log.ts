/**
 * The request layer's debug log, as one more subscriber of its response events: a line per
 * attempt (route, method, status or failure kind with its cause or time-out, attempt, ms,
 * remaining budget) and one per refusal by the local gate. Events carry no key, so neither do
 * these lines.
 */
import type { Logger } from '../logger.js';
import type { ResponseListener } from './response-events.js';

export function responseLogger(logger: Logger): ResponseListener {
  return (e) => {
    // A joined GET sent nothing of its own: the call that sent it has logged it already.
    if (e.joined) return;
    if (e.kind === 'refused') {
      logger.debug({ route: e.route, attempt: e.attempt, local: true }, 'feed api request refused by rate gate');
      return;
    }
    logger.debug(
      {
        route: e.route,
        method: e.method,
        status: e.kind === 'status' ? e.status : e.kind,
        // What a transport failure was (a refused port, a reset, an untrusted certificate), and how long a time-out waited.
        ...(e.kind === 'connection' && e.systemCode !== undefined ? { cause: e.systemCode } : {}),
        ...(e.kind === 'timeout' && e.timeoutMs !== undefined ? { timeoutMs: e.timeoutMs } : {}),
        attempt: e.attempt,
        ms: Math.round(e.latencyMs),
        remaining: e.remaining,
      },
      'feed api request',
    );
  };
}
