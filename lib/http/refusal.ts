import "server-only";
import type { ErrorBody } from "./error-response";
import { type ErrorCode, statusForCode } from "./error-table";

/** A request refused at the boundary, before any work: its status and the one error body. */
export class RequestRefusal {
  constructor(
    readonly status: number,
    readonly body: ErrorBody,
  ) {}

  static of(code: ErrorCode, message: string): RequestRefusal {
    return new RequestRefusal(statusForCode(code), { error: { code, message }, pending: null });
  }

  toResponse(): Response {
    return Response.json(this.body, { status: this.status });
  }
}
