/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import type { Child } from "hono/jsx";

/** One choice of a select: the value sent and the label shown. */
export interface Choice {
  value: string;
  label: string;
}

/**
 * A labelled select (a filter, or a field of a form). The choice whose value is `selected` is
 * marked selected; with `selected` undefined none is, and the browser shows the first.
 */
export function SelectField(props: { name: string; label: string; choices: readonly Choice[]; selected?: string | undefined; id?: string | undefined; required?: boolean | undefined }) {
  const id = props.id ?? props.name;
  return (
    <div>
      <label for={id}>{props.label}</label>
      <select id={id} name={props.name} required={props.required}>
        {props.choices.map((c) => (
          <option value={c.value} selected={props.selected === c.value}>
            {c.label}
          </option>
        ))}
      </select>
    </div>
  );
}

/** A labelled one-line text input of a filter form, showing the filter's current value. */
export function TextFilter(props: { name: string; label: string; value: string | undefined; placeholder?: string | undefined }) {
  return (
    <div>
      <label for={props.name}>{props.label}</label>
      <input id={props.name} name={props.name} type="text" placeholder={props.placeholder} value={props.value ?? ""} />
    </div>
  );
}

/** The "any" choice of a filter: no value, so the list is not filtered by it. */
export const ANY_CHOICE: Choice = { value: "", label: "any" };

/** AI accounts as choices: the account's id sent, its name shown. */
export function accountChoices(accounts: readonly { id: string; friendly_name: string }[]): Choice[] {
  return accounts.map((a) => ({ value: a.id, label: a.friendly_name }));
}

/** Choices from plain values (an underscore shown as a space), with "any" first when `anyValue` is given. */
export function choicesOf(values: readonly string[], anyValue?: string): Choice[] {
  return [...(anyValue === undefined ? [] : [{ value: anyValue, label: "any" }]), ...values.map((v) => ({ value: v, label: v.replaceAll("_", " ") }))];
}

/**
 * A list's filters: a GET form to `action` with its fields and a submit button ("Show"). A
 * `live` form sits in a panel and, with JavaScript, the list follows the fields as they change
 * (htmx); without, the button submits them.
 */
export function FilterForm(props: { action: string; children?: Child; button?: string | undefined; live?: boolean | undefined }) {
  const live = props.live === true ? { "hx-get": props.action, "hx-trigger": "change, submit", "hx-push-url": "true" } : {};
  return (
    <form class={props.live === true ? "filters panel" : "filters"} method="get" action={props.action} {...live}>
      {props.children}
      <div>
        <button type="submit" class="secondary">
          {props.button ?? "Show"}
        </button>
      </div>
    </form>
  );
}
