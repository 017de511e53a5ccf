import { html, nothing, type ReactiveController, type ReactiveControllerHost, type TemplateResult } from "lit";
import { fieldErrorsOf, problemText } from "./api.ts";

/**
 * One form's state, the same way in every screen: the API is the validator (forms are `novalidate`, so a person
 * reads one style of message, the API's sentences, beside the field they are about), a refusal that names no field
 * is shown above the buttons, and a second submit while the first is under way is ignored (no double-create).
 *
 *   readonly #form = new FormController(this);
 *   ... <form novalidate @submit=${(e) => this.#form.submit(e, (data) => api("POST", "/public/v1/...", {...}))}>
 *         <input id="x-name" name="name" ${...} aria-invalid=${this.#form.invalid("name")}
 *                aria-describedby=${this.#form.describedBy("x", "name")}>${this.#form.error("x", "name")}
 *         ${this.#form.message()}
 */
export class FormController implements ReactiveController {
  /** Messages by field name, as the form's inputs are named. */
  errors: Record<string, string> = {};
  /** The message of a refusal that names no field (offline, rate-limited, a conflict). */
  problem = "";
  busy = false;

  readonly #host: ReactiveControllerHost;
  /** Maps the API's field path ("sites.2", "config.url") to the input's name ("site", "url"). */
  readonly #field: (apiField: string) => string;

  constructor(host: ReactiveControllerHost, field: (apiField: string) => string = (f) => f.replace(/\.\d+$/, "")) {
    this.#host = host;
    this.#field = field;
    host.addController(this);
  }

  hostConnected(): void {}

  /**
   * Runs `action` with the form's data; resolves with its result, or undefined when the API refused (the messages
   * are then shown). The event's default (a page load) is always prevented.
   */
  async submit<T>(event: SubmitEvent | null, action: (data: FormData) => Promise<T>): Promise<T | undefined> {
    event?.preventDefault();
    if (this.busy) return undefined;
    const form = event?.target instanceof HTMLFormElement ? event.target : null;
    this.busy = true;
    this.errors = {};
    this.problem = "";
    this.#host.requestUpdate();
    try {
      return await action(form ? new FormData(form) : new FormData());
    } catch (error) {
      const fields = fieldErrorsOf(error, this.#field);
      if (fields) this.errors = fields;
      else this.problem = problemText(error);
      // The first field in error takes the focus, so a keyboard or screen-reader user lands on what to fix.
      if (form && fields) queueMicrotask(() => form.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus());
      return undefined;
    } finally {
      this.busy = false;
      this.#host.requestUpdate();
    }
  }

  /** Forgets every message (Cancel, or a dialog opened again). */
  reset(): void {
    this.errors = {};
    this.problem = "";
    this.busy = false;
    this.#host.requestUpdate();
  }

  /** `aria-invalid` of the input named `name`. */
  invalid(name: string): "true" | typeof nothing {
    return this.errors[name] ? "true" : nothing;
  }

  /** `aria-describedby` of the input named `name` in the form whose ids start with `prefix`; `hint` is an id too. */
  describedBy(prefix: string, name: string, hint?: string): string | typeof nothing {
    const ids = [hint, this.errors[name] ? `${prefix}-${name}-error` : undefined].filter(Boolean);
    return ids.length > 0 ? ids.join(" ") : nothing;
  }

  /** The message beside the input named `name` (its id is what `describedBy` names). */
  error(prefix: string, name: string): TemplateResult | typeof nothing {
    const message = this.errors[name];
    return message ? html`<p class="error" id=${`${prefix}-${name}-error`}>${message}</p>` : nothing;
  }

  /** The refusal that names no field, announced. */
  message(): TemplateResult | typeof nothing {
    return this.problem ? html`<p class="notice bad" role="alert">${this.problem}</p>` : nothing;
  }
}

/** The hint under a text input that states its limit beforehand, rather than cutting the text silently. */
export function limitHint(id: string, max: number): TemplateResult {
  return html`<small class="hint" id=${id}>At most ${max} characters.</small>`;
}
