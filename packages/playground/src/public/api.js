/* global fetch */
/** The playground's JSON API: GET without a body, POST with one; a refusal throws ApiError. */
import { tr } from './i18n.js';
import { ui } from './state.js';

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

export async function api(path, body) {
  const init = body === undefined ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
  const res = await fetch(path, init);
  const data = await res.json().catch(() => ({}));
  if (!res.ok) throw new ApiError(res.status, data.error ?? `HTTP ${res.status}`);
  return data;
}

/** What to tell the visitor about a failed call, in their language where the page knows the case. */
export function explain(error, lang) {
  // 409: the bot process is not there to answer (no gateway session, or nothing at the endpoint).
  if (!(error instanceof ApiError) || error.status !== 409) return error.message;
  return tr(lang, ui.info?.transport === 'http' ? 'error.botOffline.http' : 'error.botOffline');
}
