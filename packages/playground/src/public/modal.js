/**
 * A bot's form (an interaction's modal) as the renderer's <discord-modal> with one
 * <discord-input-text> per text input.
 */
import { el } from './dom.js';

/** The text inputs of a modal: in Label components (type 18) or, the older way, in action rows. */
function textInputs(components) {
  const out = [];
  for (const c of components ?? []) {
    if (c.type === 18 && c.component?.type === 4) out.push({ ...c.component, label: c.label, description: c.description });
    else if (c.type === 1) for (const inner of c.components ?? []) if (inner.type === 4) out.push(inner);
  }
  return out;
}

/**
 * Shows the form of `snapshot` from `bot` ({ username, avatar }) in `host`. `onSubmit(values)`
 * runs when it is sent, `onCancel()` when it closes without being sent.
 */
export async function openModal({ snapshot, bot, host, onSubmit, onCancel }) {
  const modal = el('discord-modal', {
    'modal-id': `modal-${snapshot.id}`,
    'modal-title': snapshot.modal.title,
    author: bot.username,
    avatar: bot.avatar,
    'data-testid': 'modal',
  });
  for (const input of textInputs(snapshot.modal.components)) {
    if (input.description) modal.append(el('p', { class: 'modal-description' }, [input.description]));
    modal.append(
      el('discord-input-text', {
        type: input.style === 2 ? 'paragraph' : 'short',
        label: input.label ?? input.custom_id,
        required: input.required !== false,
        'min-length': input.min_length,
        'max-length': input.max_length ?? 4000,
        placeholder: input.placeholder,
        'default-value': input.value,
        'data-custom-id': input.custom_id,
      }),
    );
  }
  let submitted = false;
  modal.submitForm = () => {
    submitted = true;
    const values = {};
    for (const field of modal.querySelectorAll('discord-input-text')) {
      const control = field.shadowRoot?.querySelector('input, textarea');
      values[field.dataset.customId] = control?.value ?? '';
    }
    onSubmit(values);
  };
  modal.closeForm = () => {
    if (!submitted) onCancel();
    modal.remove();
  };
  host.append(modal);
  await modal.updateComplete;
  const dialog = modal.shadowRoot.querySelector('dialog');
  dialog.showModal();
  modal.shadowRoot.querySelector('.discord-modal-box').style.display = 'flex';
  await Promise.all([...modal.querySelectorAll('discord-input-text')].map((f) => f.updateComplete));
  modal.querySelector('discord-input-text')?.shadowRoot?.querySelector('input, textarea')?.focus();
}
