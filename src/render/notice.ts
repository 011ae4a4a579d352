/** The two plain answers: an explanation of a failure, and a notice. */
import type { APIEmbed } from 'discord.js';
import { Colors, Limits } from './style.js';
import { truncate } from './text.js';

export function errorEmbed(message: string): APIEmbed {
  return { color: Colors.danger, description: truncate(message, Limits.description) };
}

export function noticeEmbed(message: string, color: number = Colors.brand): APIEmbed {
  return { color, description: truncate(message, Limits.description) };
}
