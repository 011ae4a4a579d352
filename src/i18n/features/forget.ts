/** Catalogue strings of forgetting a server (`/feedbot forget`), English and Spanish (same keys; the type checks it). */
export const en = {
  'cmd.feedbot.forget.name': 'forget',
  'cmd.feedbot.forget.description': "Delete this server's API key and all its feedbot settings (asks for confirmation first)",

  'forget.title': "Delete this server's feedbot data?",
  'forget.confirm':
    "This deletes, now and for good, this server's API key, its feedbot settings (audit channel, feed-manager roles, health threshold) and any open confirmation. Feeds at the service are not touched. Feed commands stop working until an admin runs `/apikey set` again.\nThis question expires {expires}.",
  'forget.button.delete': 'Delete everything',
  'forget.button.cancel': 'Cancel',
  'forget.done.title': 'Server data deleted',
  'forget.done': "This server's API key and feedbot settings are deleted. A last line was posted to the audit channel, if one was set.",
  'forget.cancelled': 'Nothing was deleted.',
  'forget.expired': 'This confirmation has expired and nothing was deleted. Run `/feedbot forget` again.',

  'forget.audit.title': "feedbot's data for this server was deleted",
  'forget.audit.description':
    'The API key and every feedbot setting of this server, this audit channel among them, were deleted. This is the last post here until an admin sets them again.',
} as const;

export const es: Record<keyof typeof en, string> = {
  'cmd.feedbot.forget.name': 'olvidar',
  'cmd.feedbot.forget.description': 'Borra la clave de API y toda la configuración de feedbot de este servidor (pide confirmación)',

  'forget.title': '¿Borrar los datos de feedbot de este servidor?',
  'forget.confirm':
    'Esto borra, ahora y para siempre, la clave de API de este servidor, su configuración de feedbot (canal de auditoría, roles de gestor de feeds, umbral de salud) y cualquier confirmación abierta. Los feeds del servicio no se tocan. Los comandos de feeds dejan de funcionar hasta que un administrador vuelva a usar `/clave-api establecer`.\nEsta pregunta caduca {expires}.',
  'forget.button.delete': 'Borrar todo',
  'forget.button.cancel': 'Cancelar',
  'forget.done.title': 'Datos del servidor borrados',
  'forget.done': 'La clave de API y la configuración de feedbot de este servidor están borradas. Se publicó una última línea en el canal de auditoría, si había uno.',
  'forget.cancelled': 'No se ha borrado nada.',
  'forget.expired': 'Esta confirmación ha caducado y no se ha borrado nada. Vuelve a usar `/feedbot olvidar`.',

  'forget.audit.title': 'Se borraron los datos de feedbot de este servidor',
  'forget.audit.description':
    'Se borraron la clave de API y toda la configuración de feedbot de este servidor, incluido este canal de auditoría. Es la última publicación aquí hasta que un administrador vuelva a configurarlos.',
};
