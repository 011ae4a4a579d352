/** Registered application commands, global and per guild, as Discord stores them. */
import type { APIApplicationCommand } from 'discord-api-types/v10';
import { snowflake } from './snowflake.js';

type Body = Record<string, unknown>;

export class CommandStore {
  private readonly global: APIApplicationCommand[] = [];
  private readonly guilds = new Map<string, APIApplicationCommand[]>();

  constructor(private readonly applicationId: string) {}

  /** Commands of one scope: `null` for global. */
  list(guildId: string | null): APIApplicationCommand[] {
    return guildId === null ? this.global : (this.guilds.get(guildId) ?? []);
  }

  /** Guild ids that have guild commands. */
  guildIds(): string[] {
    return [...this.guilds.keys()];
  }

  get(guildId: string | null, id: string): APIApplicationCommand | undefined {
    return this.list(guildId).find((c) => c.id === id);
  }

  /** The command a user would pick: a guild command shadows a global one of the same name. */
  find(guildId: string | null, name: string, type = 1): APIApplicationCommand | undefined {
    const match = (c: APIApplicationCommand) => c.name === name && (c.type ?? 1) === type;
    return (guildId !== null ? this.list(guildId).find(match) : undefined) ?? this.global.find(match);
  }

  /** Bulk overwrite: commands keep their id when name and type match an existing one. */
  overwrite(guildId: string | null, bodies: Body[]): APIApplicationCommand[] {
    const previous = this.list(guildId);
    const next = bodies.map((body) => {
      const type = typeof body.type === 'number' ? body.type : 1;
      const existing = previous.find((c) => c.name === body.name && (c.type ?? 1) === type);
      return this.build(guildId, body, existing?.id);
    });
    this.setScope(guildId, next);
    return next;
  }

  /** POST: creates, or replaces the command with the same name and type (Discord upserts). */
  upsert(guildId: string | null, body: Body): { command: APIApplicationCommand; created: boolean } {
    const list = [...this.list(guildId)];
    const type = typeof body.type === 'number' ? body.type : 1;
    const index = list.findIndex((c) => c.name === body.name && (c.type ?? 1) === type);
    const command = this.build(guildId, body, index >= 0 ? list[index]?.id : undefined);
    if (index >= 0) list[index] = command;
    else list.push(command);
    this.setScope(guildId, list);
    return { command, created: index < 0 };
  }

  edit(guildId: string | null, id: string, patch: Body): APIApplicationCommand | undefined {
    const list = [...this.list(guildId)];
    const index = list.findIndex((c) => c.id === id);
    const current = list[index];
    if (!current) return undefined;
    const command = this.build(guildId, { ...current, ...patch }, id);
    list[index] = command;
    this.setScope(guildId, list);
    return command;
  }

  remove(guildId: string | null, id: string): boolean {
    const list = this.list(guildId);
    const next = list.filter((c) => c.id !== id);
    this.setScope(guildId, next);
    return next.length !== list.length;
  }

  private setScope(guildId: string | null, list: APIApplicationCommand[]): void {
    if (guildId === null) this.global.splice(0, this.global.length, ...list);
    else this.guilds.set(guildId, list);
  }

  private build(guildId: string | null, body: Body, id?: string): APIApplicationCommand {
    const type = typeof body.type === 'number' ? body.type : 1;
    const command: Record<string, unknown> = {
      id: id ?? snowflake(),
      application_id: this.applicationId,
      version: snowflake(),
      type,
      name: body.name,
      name_localizations: body.name_localizations ?? null,
      description: typeof body.description === 'string' ? body.description : '',
      description_localizations: body.description_localizations ?? null,
      default_member_permissions: body.default_member_permissions ?? null,
      nsfw: body.nsfw === true,
      integration_types: Array.isArray(body.integration_types) ? body.integration_types : [0],
      contexts: Array.isArray(body.contexts) ? body.contexts : null,
    };
    if (Array.isArray(body.options) && body.options.length > 0) command.options = body.options;
    if (guildId !== null) command.guild_id = guildId;
    else command.dm_permission = body.dm_permission !== false;
    return command as unknown as APIApplicationCommand;
  }
}
