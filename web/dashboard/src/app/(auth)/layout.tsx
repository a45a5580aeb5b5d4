import Link from "next/link";
import type { ReactNode } from "react";

export default function AuthLayout({ children }: { children: ReactNode }) {
  return (
    <div className="auth-shell">
      <header className="auth-brand">
        <Link href="/login">Support Desk</Link>
      </header>
      <main id="main" className="auth-card">
        {children}
      </main>
    </div>
  );
}
