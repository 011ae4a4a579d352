/* global fetch */
/** The playground's JSON API (GET without a body, POST with one) and file uploads; a refusal throws ApiError. */
import { tr } from './i18n.js';
import { ui } from './state.js';

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

async function answer(res) {
  const data = await res.json().catch(() => ({}));
  if (!res.ok) throw new ApiError(res.status, data.error ?? `HTTP ${res.status}`);
  return data;
}

/** `method` defaults to POST with a body, GET without one. */
export async function api(path, body, method = body === undefined ? 'GET' : 'POST') {
  const init = body === undefined ? { method } : { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
  return answer(await fetch(path, init));
}

/** Uploads a file the visitor picked, as the Discord client does before sending a command; resolves with the attachment. */
export async function upload(file) {
  const type = file.type || 'application/octet-stream';
  return answer(await fetch(`/api/attachments?filename=${encodeURIComponent(file.name)}`, { method: 'POST', headers: { 'content-type': type }, body: file }));
}

/** What to tell the visitor about a failed call, in their language where the page knows the case. */
export function explain(error, lang) {
  // 409: the bot process is not there to answer (no gateway session, or nothing at the endpoint).
  if (!(error instanceof ApiError) || error.status !== 409) return error.message;
  return tr(lang, ui.info?.transport === 'http' ? 'error.botOffline.http' : 'error.botOffline');
}
