/**
 * custom_ids of buttons and modals: `<command>:<action>:<part>:…`. Each component has one codec
 * that both writes and reads its id, so what a button carries is typed, and a stale or tampered
 * id never reaches a handler. Reading is strict: a part is accepted only if encode() could have
 * written it (digits without sign, exponent or leading zeros; safe integers; 17–20 digit
 * snowflakes; values from a fixed set; exactly the declared number of parts).
 */

/** One part of a custom_id. Method syntax on purpose: a `Part<number>` is usable where parts are mixed. */
export interface Part<T> {
  /** The text for `value`; never contains ':'. */
  write(value: T): string;
  /** What `text` stands for, or undefined when write() could not have produced it. */
  read(text: string): { value: T } | undefined;
}

const DIGITS = /^(?:0|[1-9]\d*)$/;

/** A whole number within bounds (default 0 … Number.MAX_SAFE_INTEGER). */
export function int(bounds: { min?: number; max?: number } = {}): Part<number> {
  const min = bounds.min ?? 0;
  const max = bounds.max ?? Number.MAX_SAFE_INTEGER;
  return {
    write: (n) => String(n),
    read(text) {
      if (!DIGITS.test(text)) return undefined;
      const n = Number(text);
      return Number.isSafeInteger(n) && n >= min && n <= max ? { value: n } : undefined;
    },
  };
}

const SNOWFLAKE = /^[1-9]\d{16,19}$/;
const MAX_SNOWFLAKE = 2n ** 64n - 1n;

/** A Discord id (user, channel): 17–20 digits that fit 64 bits. */
export const snowflake: Part<string> = {
  write: (id) => id,
  read: (text) => (SNOWFLAKE.test(text) && BigInt(text) <= MAX_SNOWFLAKE ? { value: text } : undefined),
};

/** One value of a fixed set. */
export function oneOf<const T extends string>(values: readonly T[]): Part<T> {
  return {
    write: (value) => value,
    read: (text) => (values.includes(text as T) ? { value: text as T } : undefined),
  };
}

const NONE = '-';

/** A part that may be absent, written `-`. */
export function optional<T>(part: Part<T>): Part<T | undefined> {
  return {
    write: (value) => (value === undefined ? NONE : part.write(value)),
    read: (text) => (text === NONE ? { value: undefined } : part.read(text)),
  };
}

type StateOf<P> = { [K in keyof P]: P[K] extends Part<infer T> ? T : never };

export interface CustomIdCodec<S> {
  /** `<command>:<action>`: routes an interaction to the component that owns this codec. */
  readonly prefix: string;
  encode(state: S): string;
  /** The state `customId` carries, or undefined when this codec could not have written it. */
  decode(customId: string): S | undefined;
}

/** What a codec's ids carry: `Decoded<typeof listPageId>`. */
export type Decoded<C> = C extends CustomIdCodec<infer S> ? S : never;

/** Discord's limit for a custom_id. */
const MAX_CUSTOM_ID_LENGTH = 100;

/**
 * The codec for ids `<prefix>:<part>:…`, parts in the order of `parts`' keys. encode() refuses
 * (throws) a value its own decode() would not accept, so no component is ever sent that could not
 * be read back.
 */
export function customId<const P extends Record<string, Part<unknown>>>(prefix: `${string}:${string}`, parts: P): CustomIdCodec<StateOf<P>> {
  const names = Object.keys(parts) as (keyof P & string)[];
  return {
    prefix,
    encode(state) {
      const texts = names.map((name) => {
        const text = parts[name]!.write(state[name]);
        if (text.includes(':') || !parts[name]!.read(text)) throw new Error(`custom_id ${prefix}: ${name} cannot be encoded`);
        return text;
      });
      const id = [prefix, ...texts].join(':');
      if (id.length > MAX_CUSTOM_ID_LENGTH) throw new Error(`custom_id ${prefix} is longer than ${MAX_CUSTOM_ID_LENGTH}`);
      return id;
    },
    decode(id) {
      if (id !== prefix && !id.startsWith(`${prefix}:`)) return undefined;
      const texts = id === prefix ? [] : id.slice(prefix.length + 1).split(':');
      if (texts.length !== names.length) return undefined;
      const state: Partial<Record<keyof P, unknown>> = {};
      for (const [i, name] of names.entries()) {
        const read = parts[name]!.read(texts[i]!);
        if (!read) return undefined;
        state[name] = read.value;
      }
      return state as StateOf<P>;
    },
  };
}

/**
 * A codec that writes `current` ids and still reads those `former` wrote: buttons posted before a
 * part was added keep working after an update, read as the current state `upgrade` makes of them.
 * An id either could have written is read as `current`'s first.
 */
export function withFormerFormat<S, F>(current: CustomIdCodec<S>, former: CustomIdCodec<F>, upgrade: (state: F) => S): CustomIdCodec<S> {
  if (former.prefix !== current.prefix) throw new Error(`custom_id ${current.prefix}: a former format must have the same prefix, not ${former.prefix}`);
  return {
    prefix: current.prefix,
    encode: (state) => current.encode(state),
    decode(id) {
      const state = current.decode(id);
      if (state !== undefined) return state;
      const old = former.decode(id);
      return old === undefined ? undefined : upgrade(old);
    },
  };
}

/** `<command>:<action>` of any custom_id: the key components are routed by. */
export function customIdPrefix(id: string): string {
  return id.split(':', 2).join(':');
}

/** `<command>` of any custom_id. */
export function customIdCommand(id: string): string {
  return id.split(':', 1)[0] ?? '';
}
