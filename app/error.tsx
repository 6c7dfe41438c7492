"use client";

/** Any page that failed to render: say so, keep the header, offer a retry. Details are in the server log. */
export default function PageError({ reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <div className="panel" role="alert">
      <h1>This page could not be shown</h1>
      <p>
        Something went wrong while loading it; the server has logged the details. Nothing you did was lost.
      </p>
      <button type="button" className="primary" onClick={reset}>
        Try again
      </button>
    </div>
  );
}
