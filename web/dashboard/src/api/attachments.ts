// Files on messages, through the one typed API client (paths and answers generated from
// /openapi.json; the workspace token, and a 401 or a 403 ending access handled like any other
// call's). An upload is multipart/form-data with one part named `file`: the client is handed
// the FormData as the serialized body, so the browser writes the boundary itself.

import type { Api } from "./client";
import { unwrap } from "./client";
import type { Attachment } from "./types";

/** Files an agent may attach: 25 MiB each (the API refuses more with 413). */
export const AGENT_MAX_BYTES = 25 * 1024 * 1024;

/** `POST /api/conversations/{id}/attachments`: the stored file, with fresh links. */
export function uploadAttachment(api: Api, conversationId: string, file: File, signal?: AbortSignal): Promise<Attachment> {
  const form = new FormData();
  form.append("file", file, file.name);
  return unwrap(
    api.workspace.POST("/api/conversations/{id}/attachments", {
      params: { path: { id: conversationId } },
      // The generated body names the part; what is sent is the form with the file itself.
      body: { file: file.name },
      bodySerializer: () => form,
      signal,
    }),
  );
}

/** `GET /api/conversations/{id}/attachments/{attachmentId}`: the file with links good for five minutes. */
export function fetchAttachment(api: Api, conversationId: string, attachmentId: string): Promise<Attachment> {
  return unwrap(
    api.workspace.GET("/api/conversations/{id}/attachments/{attachmentId}", {
      params: { path: { id: conversationId, attachmentId } },
    }),
  );
}
