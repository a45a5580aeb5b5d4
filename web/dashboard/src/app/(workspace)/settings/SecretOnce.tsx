import { CopyButton } from "@/components/ui";

/** A secret the API shows once: readable, copyable, with a warning. */
export function SecretOnce({ label, secret }: { label: string; secret: string }) {
  return (
    <div className="secret" role="status">
      <label>
        {label} (shown once: copy it now)
        <input readOnly value={secret} className="mono" onFocus={(e) => e.currentTarget.select()} />
      </label>
      <CopyButton text={secret} label={`Copy ${label.toLowerCase()}`} />
    </div>
  );
}
