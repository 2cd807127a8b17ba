/** @jsxRuntime automatic @jsxImportSource hono/jsx */
/** The field of a new password, with the rules it must meet (the core's password policy). */
export function NewPasswordField(props: { label: string }) {
  return (
    <div>
      <label for="password">{props.label}</label>
      <input id="password" name="password" type="password" autocomplete="new-password" required minlength={12} maxlength={256} aria-describedby="password-hint" />
      <p class="hint" id="password-hint">
        12 to 256 characters. Common passwords and your email's name are refused.
      </p>
    </div>
  );
}
