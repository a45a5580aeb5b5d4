import type { Metadata } from "next";
import { RequireUser } from "@/components/RequireUser";
import { WorkspacePicker } from "./WorkspacePicker";

export const metadata: Metadata = { title: "Your workspaces" };

export default function WorkspacesPage() {
  return (
    <RequireUser>
      <WorkspacePicker />
    </RequireUser>
  );
}
