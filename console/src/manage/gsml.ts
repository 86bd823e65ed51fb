// A screen's or a snippet's HTML + GSML, made safe to show: DOMPurify with an allow-list of tags and attributes
// (no script, no event handler, no style, no URL but http(s), mailto and #), then each gs-* tag turned into
// the plain, accessible HTML the console shows for it. An element the allow-list refuses is shown as its markup
// (text), so the author sees what was left out and nothing of it runs.
import DOMPurify from 'dompurify';

export const GS_TAGS = [
  'gs-row',
  'gs-col',
  'gs-title-block',
  'gs-placeholder',
  'gs-form',
  'gs-submit',
  'gs-link',
  'gs-snippet',
  'gs-alert',
  'gs-modal-close',
];
const HTML_TAGS = [
  ...['a', 'abbr', 'b', 'blockquote', 'br', 'caption', 'code', 'dd', 'div', 'dl', 'dt', 'em', 'h1', 'h2'],
  ...['h3', 'h4', 'h5', 'h6', 'hr', 'i', 'li', 'ol', 'p', 'pre', 'small', 'span', 'strong', 'sub', 'sup'],
  ...['table', 'tbody', 'td', 'tfoot', 'th', 'thead', 'tr', 'u', 'ul', 'label', 'input', 'select'],
  ...['option', 'optgroup', 'textarea', 'fieldset', 'legend', 'details', 'summary', 'time', 'mark'],
];
export const ALLOWED_TAGS = [...HTML_TAGS, ...GS_TAGS];
export const ALLOWED_ATTR = [
  ...['class', 'name', 'type', 'value', 'placeholder', 'for', 'id', 'colspan', 'rowspan', 'scope', 'href'],
  ...['checked', 'selected', 'disabled', 'readonly', 'required', 'min', 'max', 'step', 'rows', 'cols'],
  ...['multiple', 'size', 'maxlength', 'pattern', 'datetime', 'open', 'aria-label', 'role'],
  // GSML attributes.
  ...['snippet', 'target', 'width', 'align', 'title', 'height', 'padding', 'margin', 'message', 'label'],
];
const FIELDS = new Set(['INPUT', 'SELECT', 'TEXTAREA']);
const INPUT_TYPES = new Set([
  'text',
  'number',
  'checkbox',
  'radio',
  'hidden',
  'date',
  'datetime-local',
  'email',
]);

let hooked = false;
function hook(): void {
  if (hooked) return;
  hooked = true;
  DOMPurify.addHook('uponSanitizeElement', (node, data) => {
    const tag = data.tagName;
    if (tag === '#text' || tag === 'body' || tag === '#comment' || data.allowedTags[tag]) return;
    // Refused: its markup as text in its place, so the author sees it and it does nothing.
    const el = node as Element;
    if (el.parentNode && typeof el.outerHTML === 'string') {
      el.parentNode.replaceChild(el.ownerDocument.createTextNode(el.outerHTML), el);
    }
  });
  DOMPurify.addHook('uponSanitizeAttribute', (node, data) => {
    // A field's name is what the snippet receives (the original's snippets switch on a field named "action").
    // DOMPurify drops names that are also DOM properties (action, submit...) against clobbering; field names
    // clobber only their form's properties, which the console never reads (it reads fields with FormData).
    const tag = (node as Element).tagName;
    if (data.attrName === 'name' && FIELDS.has(tag) && /^[\w.-]{1,100}$/.test(data.attrValue)) {
      data.forceKeepAttr = true;
    }
    // Inputs only of the ordinary kinds (no type=image or file); ids are namespaced below.
    if (
      data.attrName === 'type' &&
      (node as Element).tagName === 'INPUT' &&
      !INPUT_TYPES.has(data.attrValue)
    ) {
      data.keepAttr = false;
    }
  });
}

/** The sanitized fragment of `html` (GSML tags still in it). */
export function sanitize(html: string): DocumentFragment {
  hook();
  return DOMPurify.sanitize(html, {
    ALLOWED_TAGS,
    ALLOWED_ATTR,
    ALLOW_DATA_ATTR: false,
    ALLOW_ARIA_ATTR: false,
    // Only href holds a URL; every other attribute is text, never checked as one.
    ALLOWED_URI_REGEXP: /^(?:https?:|mailto:|#)/i,
    ADD_URI_SAFE_ATTR: ALLOWED_ATTR.filter((a) => a !== 'href'),
    RETURN_DOM_FRAGMENT: true,
    CUSTOM_ELEMENT_HANDLING: {
      tagNameCheck: (t: string) => GS_TAGS.includes(t),
      attributeNameCheck: (a: string) => ALLOWED_ATTR.includes(a),
      allowCustomizedBuiltInElements: false,
    },
  });
}

function make(doc: Document, tag: string, from: Element, classes: string[]): HTMLElement {
  const el = doc.createElement(tag);
  el.className = [...classes, from.getAttribute('class') ?? ''].join(' ').trim();
  while (from.firstChild) el.appendChild(from.firstChild);
  from.replaceWith(el);
  return el;
}

const copy = (from: Element, to: HTMLElement, attrs: string[]) => {
  for (const a of attrs) {
    const v = from.getAttribute(a);
    if (v !== null) to.dataset[a === 'snippet' ? 'gsSnippet' : 'gsTarget'] = v;
  }
};

/** Turns the GSML tags of a sanitized fragment into plain HTML with data-gs-* markers the screen view acts on. */
export function transform(root: DocumentFragment | Element, scope: string): void {
  const doc = root.ownerDocument ?? document;
  // Author ids are kept out of the console's own id space.
  for (const el of root.querySelectorAll('[id]')) el.id = `${scope}-${el.id}`;
  for (const el of root.querySelectorAll('[for]'))
    el.setAttribute('for', `${scope}-${el.getAttribute('for')}`);
  for (const el of [...root.querySelectorAll(GS_TAGS.join(','))].reverse()) {
    const tag = el.tagName.toLowerCase();
    const attr = (a: string) => el.getAttribute(a) ?? '';
    switch (tag) {
      case 'gs-row':
        make(doc, 'div', el, ['gs-row']);
        break;
      case 'gs-col': {
        const width = Math.min(12, Math.max(1, Number.parseInt(attr('width'), 10) || 12));
        const align = ['left', 'center', 'right'].includes(attr('align'))
          ? [`gs-align-${attr('align')}`]
          : [];
        make(doc, 'div', el, ['gs-col', `gs-col-${width}`, ...align]);
        break;
      }
      case 'gs-title-block': {
        const title = attr('title');
        const section = make(doc, 'section', el, [
          'gs-title-block',
          ...(attr('height') ? ['gs-scroll'] : []),
        ]);
        if (title) {
          const h = doc.createElement('h3');
          h.textContent = title;
          section.prepend(h);
          section.setAttribute('aria-label', title);
        }
        break;
      }
      case 'gs-placeholder': {
        const div = make(doc, 'div', el, ['gs-placeholder']);
        div.dataset.gsPlaceholder = attr('id').replace(`${scope}-`, '');
        div.removeAttribute('id');
        div.setAttribute('aria-live', 'polite');
        break;
      }
      case 'gs-form': {
        const form = make(doc, 'form', el, ['gs-form']);
        copy(el, form, ['snippet', 'target']);
        break;
      }
      case 'gs-submit': {
        const label = el.textContent?.trim() || attr('label') || 'Submit';
        const button = doc.createElement('button');
        button.type = 'submit';
        button.textContent = label;
        copy(el, button, ['snippet', 'target']);
        el.replaceWith(button);
        break;
      }
      case 'gs-link': {
        const button = make(doc, 'button', el, ['gs-link', 'link']);
        (button as HTMLButtonElement).type = 'button';
        if (!button.textContent?.trim()) button.textContent = attr('title') || attr('snippet');
        copy(el, button, ['snippet', 'target']);
        break;
      }
      case 'gs-snippet': {
        const div = make(doc, 'div', el, ['gs-snippet']);
        copy(el, div, ['snippet', 'target']);
        div.dataset.gsRun = 'mount';
        break;
      }
      case 'gs-alert': {
        const kind = ['success', 'warn', 'error'].includes(attr('type')) ? attr('type') : 'info';
        const div = make(doc, 'div', el, ['gs-alert', `gs-alert-${kind}`]);
        div.setAttribute('role', kind === 'error' || kind === 'warn' ? 'alert' : 'status');
        if (attr('message')) div.prepend(doc.createTextNode(attr('message')));
        break;
      }
      case 'gs-modal-close': {
        const button = make(doc, 'button', el, ['secondary']);
        (button as HTMLButtonElement).type = 'button';
        button.dataset.gsModalClose = '';
        if (!button.textContent?.trim()) button.textContent = 'Close';
        break;
      }
    }
  }
}

/** Sanitized and transformed: ready to insert. */
export function toFragment(html: string, scope: string): DocumentFragment {
  const fragment = sanitize(html);
  transform(fragment, scope);
  return fragment;
}
