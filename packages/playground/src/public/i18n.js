/**
 * The playground's own words (the bot's words come from the bot), in English or Spanish. The
 * renderer's fixed labels ("Only you can see this") stay English.
 */

export const LOCALE_OF = { en: 'en-US', es: 'es-ES' };

const STRINGS = {
  en: {
    'actor.label': 'Acting as',
    'actor.admin': 'Admin',
    'actor.admin.hint': 'has Manage Server',
    'actor.member': 'Member',
    'actor.member.hint': 'no special permissions',
    'lang.label': 'Discord language',
    'channels.text': 'Text channels',
    'composer.search': 'Type / and pick a command…',
    'composer.noMatch': 'No command matches',
    'composer.send': 'Send',
    'composer.optional': 'optional',
    'composer.required': 'This field is required',
    'composer.pickOne': 'Choose…',
    'composer.none': '—',
    'composer.autocomplete.empty': 'No suggestions',
    'composer.autocomplete.loading': 'Loading suggestions…',
    'composer.hidden': 'Hidden from members: needs Manage Server',
    'composer.hint': 'Commands for {channel}',
    'composer.error': 'Discord would not send this: {error}',
    'status.sending': 'Sending command…',
    'status.thinking': '{bot} is thinking',
    'status.noResponse': 'The application did not respond',
    'status.modalOpen': 'A form is open…',
    'status.modalClosed': 'Form closed without sending.',
    'status.botDown': 'The bot is not running',
    'status.botUp': 'Bot online',
    'status.reconnecting': 'Reconnecting to the demo…',
    'used': 'used',
    'welcome.title': 'Welcome to #{channel}!',
    'welcome.body':
      'This is the feedbot playground: a local Discord emulator with the real bot behind it. Pick a command below, fill its options and send it. Switch between the admin and a member, or to a Spanish Discord client, in the panel on the left.',
    'welcome.try': 'Try',
    'key.label': 'Sandbox API key for /apikey set',
    'key.copy': 'Copy',
    'key.copied': 'Copied',
    'time.today': 'Today at {time}',
    'time.yesterday': 'Yesterday at {time}',
    'edited': '(edited)',
  },
  es: {
    'actor.label': 'Actuando como',
    'actor.admin': 'Admin',
    'actor.admin.hint': 'tiene Gestionar servidor',
    'actor.member': 'Miembro',
    'actor.member.hint': 'sin permisos especiales',
    'lang.label': 'Idioma de Discord',
    'channels.text': 'Canales de texto',
    'composer.search': 'Escribe / y elige un comando…',
    'composer.noMatch': 'Ningún comando coincide',
    'composer.send': 'Enviar',
    'composer.optional': 'opcional',
    'composer.required': 'Este campo es obligatorio',
    'composer.pickOne': 'Elige…',
    'composer.none': '—',
    'composer.autocomplete.empty': 'Sin sugerencias',
    'composer.autocomplete.loading': 'Cargando sugerencias…',
    'composer.hidden': 'Oculto para miembros: requiere Gestionar servidor',
    'composer.hint': 'Comandos para {channel}',
    'composer.error': 'Discord no enviaría esto: {error}',
    'status.sending': 'Enviando comando…',
    'status.thinking': '{bot} está pensando',
    'status.noResponse': 'La aplicación no ha respondido',
    'status.modalOpen': 'Hay un formulario abierto…',
    'status.modalClosed': 'Formulario cerrado sin enviar.',
    'status.botDown': 'El bot no está en marcha',
    'status.botUp': 'Bot en línea',
    'status.reconnecting': 'Reconectando con la demo…',
    'used': 'ha usado',
    'welcome.title': '¡Te damos la bienvenida a #{channel}!',
    'welcome.body':
      'Este es el playground de feedbot: un emulador local de Discord con el bot real detrás. Elige un comando abajo, rellena sus opciones y envíalo. En el panel de la izquierda puedes cambiar entre el admin y un miembro, o a un cliente de Discord en español.',
    'welcome.try': 'Prueba',
    'key.label': 'Clave del sandbox para /clave-api establecer',
    'key.copy': 'Copiar',
    'key.copied': 'Copiada',
    'time.today': 'hoy a las {time}',
    'time.yesterday': 'ayer a las {time}',
    'edited': '(editado)',
  },
};

export function tr(lang, key, vars = {}) {
  const template = STRINGS[lang]?.[key] ?? STRINGS.en[key] ?? key;
  return template.replace(/\{(\w+)\}/g, (whole, name) => (name in vars ? String(vars[name]) : whole));
}

/** A command, option or choice name as a client in `locale` shows it. */
export function localized(thing, field, locale) {
  return thing[`${field}_localizations`]?.[locale] ?? thing[field];
}
