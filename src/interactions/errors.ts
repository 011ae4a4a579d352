/**
 * Errors a handler throws to tell the user something. They carry a catalogue key, never text, so
 * the one central place (explain.ts) can localize them.
 */
import type { MessageKey, Vars } from '../i18n/index.js';

export class UserError extends Error {
  constructor(
    readonly key: MessageKey,
    readonly vars: Vars = {},
  ) {
    super(key);
    this.name = new.target.name;
  }
}

export class GuildOnlyError extends UserError {
  constructor() {
    super('error.guildOnly');
  }
}

export class NoApiKeyError extends UserError {
  constructor() {
    super('error.noKey');
  }
}

/** A button or modal whose custom_id no longer (or never) decodes: stale, or tampered with. */
export class ExpiredComponentError extends UserError {
  constructor() {
    super('error.expiredComponent');
  }
}

/** What a refused member tried to do; explain.ts names it with the catalogue's `action.<name>`. */
export type GuardedAction = 'createFeed' | 'deleteFeed' | 'manageKey' | 'manageSettings';

export class MissingPermissionError extends UserError {
  /** `managerRolesExist`: the guild has feed-manager roles that would also have allowed the action. */
  constructor(
    readonly action: GuardedAction,
    readonly managerRolesExist = false,
  ) {
    super('error.missingPermission');
  }
}

/**
 * What Discord delivered lacks a field the handler reads, or holds one of the wrong shape (a form
 * without its channel, a checkbox group that is not a list): nothing is done, the user is asked
 * to try again, and the operator gets one warn line without a stack.
 */
export class MalformedInteractionError extends UserError {
  constructor() {
    super('error.malformedInteraction');
  }
}

export class InvalidOptionError extends UserError {
  constructor(key: MessageKey, vars: Vars = {}) {
    super(key, vars);
  }
}

/**
 * A write whose answer was lost (`apiFailure`: a time-out, a 5xx, a reset, an unreadable body)
 * and whose effect the list could not settle: the user hears that it may have happened and to
 * look before trying again (`create.unconfirmed`, `delete.unconfirmed`); the log line keeps the
 * API's failure.
 */
export class UnconfirmedWriteError extends UserError {
  constructor(
    key: 'create.unconfirmed' | 'delete.unconfirmed',
    vars: Vars,
    readonly apiFailure: unknown,
  ) {
    super(key, vars);
  }
}
