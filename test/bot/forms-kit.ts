/**
 * What the forms' tests share: the emulator's own validators applied to what the bot
 * sent, so a modal or a message Discord would refuse fails the unit test too, and the component
 * count of a message.
 */
import { expect } from 'vitest';
import { validateMessagePayload, validateModalData } from '@feedbot/discord-emulator';
import type { CapturedCall } from '../helpers/discord.js';

type Callback = { type: number; data?: Record<string, unknown> };

/** Checks a callback (types 4, 7, 9) or an edit body as Discord would, and returns it. */
export function accepted(call: CapturedCall): Callback {
  const body = call.body as Callback;
  if ('type' in body && body.type === 9) {
    const errors = validateModalData(body.data);
    expect(errors.issues, JSON.stringify(errors.issues)).toEqual([]);
  } else {
    const payload = 'type' in body && typeof body.type === 'number' ? body.data : body;
    const { errors } = validateMessagePayload(payload, { requireContent: false });
    expect(errors.issues, JSON.stringify(errors.issues)).toEqual([]);
  }
  return body;
}

interface Row {
  components: { type: number }[];
}

/** Action rows and the components in them: what the report counts per answer. */
export function componentCount(rows: readonly Row[] | undefined): { rows: number; components: number } {
  return { rows: rows?.length ?? 0, components: (rows ?? []).reduce((n, row) => n + row.components.length, 0) };
}
