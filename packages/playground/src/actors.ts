/**
 * Who the page acts as: one of the demo's two users (an admin who owns the server, a plain
 * member), in an English or Spanish client. The page names an actor and a locale, never raw ids
 * or permissions; every API body that acts carries both.
 */
import { z } from 'zod';

export const LOCALES = ['en-US', 'es-ES'] as const;
export const ACTOR_KEYS = ['admin', 'member'] as const;
export type ActorKey = (typeof ACTOR_KEYS)[number];

export interface PlaygroundActor {
  userId: string;
  username: string;
  displayName: string;
  /** Decimal permission bit set the actor has in every channel. */
  permissions: string;
  avatar: string;
}

/** The `actor` and `locale` fields of a request body. */
export const Who = { actor: z.enum(ACTOR_KEYS), locale: z.enum(LOCALES) };
