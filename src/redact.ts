/**
 * What must never reach a log line or a span, cut out of any text: interaction tokens in
 * Discord's URLs and passwords in database URLs. A leaf: the logger and the tracing SDK's own
 * diagnostics both pass their text through it.
 */

/**
 * Interaction tokens travel in Discord's URL paths (`/webhooks/{app}/{token}/…`,
 * `/interactions/{id}/{token}/callback`); whoever holds one can answer as the bot for 15 minutes.
 */
const TOKEN_IN_PATH = /(\/(?:webhooks|interactions)\/\d+\/)[^/?#\s"']+/g;

/** `scheme://user:password@host`: a database or Redis URL quoted by a driver's error message. */
const PASSWORD_IN_URL = /([a-z][a-z0-9+.-]*:\/\/[^:/?#@\s]*:)[^@\s]+@/gi;

export function redactTokens(text: string): string {
  return text.replace(TOKEN_IN_PATH, '$1[redacted]').replace(PASSWORD_IN_URL, '$1[redacted]@');
}
