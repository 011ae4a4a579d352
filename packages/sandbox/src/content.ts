/**
 * Generated post content for the seed and the simulator: believable captions, short codes like a
 * social platform's, and timestamps. All of it from a seeded random source, so a seed reproduces.
 */
import { randomInt as cryptoRandomInt } from 'node:crypto';
import type { ContentKind } from '@feedbot/feed-api-contract';
import { pick, randomInt, type Random } from './clock.js';
import type { FeedRecord, PostRecord } from './records.js';

const CODE_ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export const POST_CODE_PATTERN = /^[0-9A-Za-z]{11}$/;

/** An 11-character post code; from `random` when given (deterministic), else from crypto. */
export function postCode(random?: Random): string {
  let code = '';
  for (let i = 0; i < 11; i++) {
    const index = random ? Math.floor(random() * CODE_ALPHABET.length) : cryptoRandomInt(CODE_ALPHABET.length);
    code += CODE_ALPHABET[index];
  }
  return code;
}

const OPENINGS = [
  'Nueva publicación',
  'Hoy compartimos',
  'Detrás de cámaras',
  'No te pierdas esto',
  'Así empezó la semana',
  'Un momento para recordar',
  'Última hora',
  'Gracias por estar ahí',
];
const SUBJECTS = [
  'una vista increíble del amanecer',
  'el lanzamiento de esta mañana',
  'nuestro nuevo proyecto',
  'lo mejor del fin de semana',
  'una receta rápida',
  'el equipo trabajando',
  'la comunidad en acción',
  'un adelanto de lo que viene',
];
const TAGS = ['#novedades', '#comunidad', '#foto', '#video', '#historia', '#hoy', '#sandbox', '#feedbot'];
const EMOJIS = ['✨', '🚀', '📸', '🎬', '🌅', '🔥', '💡', '🎉'];

const KIND_NOTE: Record<ContentKind, string> = {
  post: '',
  reel: ' (reel)',
  story: ' (historia de 24 h)',
};

export function caption(random: Random, cuenta: string, tipo: ContentKind): string {
  const tags = [pick(random, TAGS), pick(random, TAGS)].filter((t, i, all) => all.indexOf(t) === i).join(' ');
  return `${pick(random, OPENINGS)}: ${pick(random, SUBJECTS)}${KIND_NOTE[tipo]} ${pick(random, EMOJIS)} @${cuenta} ${tags}`;
}

/** A post forwarded at `forwardedAtMs`; it appeared on the platform 1–15 minutes earlier. */
export function generatedPost(random: Random, feed: FeedRecord, forwardedAtMs: number): PostRecord {
  const tipo = pick(random, feed.tipos.length > 0 ? feed.tipos : (['post'] as ContentKind[]));
  const publishedAt = forwardedAtMs - randomInt(random, 60, 900) * 1000;
  return {
    code: postCode(random),
    feedId: feed.id,
    guildId: feed.guildId,
    cuenta: feed.cuenta,
    tipo,
    caption: caption(random, feed.cuenta, tipo),
    publicadoEn: new Date(publishedAt).toISOString(),
    publicadoDiscord: new Date(forwardedAtMs).toISOString(),
  };
}
