/** What a test says a user does with a command's options, and the error for what the Discord client would not let them do. */
import type { APIAttachment } from 'discord-api-types/v10';

export class InteractionInputError extends Error {
  override name = 'InteractionInputError';
}

export type OptionInput = string | number | boolean;

/** A file the user picks for an attachment option; the Discord client uploads it before sending the command. */
export interface AttachmentUpload {
  filename: string;
  data: Uint8Array | string;
  /** Default `application/octet-stream`. */
  contentType?: string;
}

/** What an attachment option may name: uploaded files by id, or a file to upload now. */
export interface AttachmentSource {
  get(id: string): APIAttachment | undefined;
  upload(file: AttachmentUpload): APIAttachment;
}
