"use client";

import { type FormEvent, useId } from "react";
import type { InboxFilterParams } from "@/lib/wire/inbox-item";

/**
 * Narrows the inbox: a search (name or id), the tool waiting, who started the
 * run; and the order of waiting time, which applies as soon as it is chosen.
 */
export function InboxFilters({
  filter,
  onChange,
}: {
  filter: InboxFilterParams;
  onChange(filter: InboxFilterParams): void;
}) {
  const id = useId();
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const text = (name: string) => String(form.get(name) ?? "").trim() || undefined;
    const archived = text("archived");
    onChange({
      q: text("q"),
      tool: text("tool"),
      startedBy: text("startedBy"),
      order: filter.order,
      archived: archived === "include" || archived === "only" ? archived : undefined,
    });
  }
  const hasFilters = Boolean(filter.q || filter.tool || filter.startedBy || filter.archived);
  return (
    <form className="list-filters" aria-label="Filter waiting runs" onSubmit={submit}>
      <label>
        Search
        <input type="search" name="q" defaultValue={filter.q ?? ""} placeholder="Run name or id" />
      </label>
      <label>
        Tool
        <input type="search" name="tool" defaultValue={filter.tool ?? ""} placeholder="Any tool" />
      </label>
      <label>
        Started by
        <input type="search" name="startedBy" defaultValue={filter.startedBy ?? ""} placeholder="Anyone" />
      </label>
      <label>
        Archived
        <select name="archived" defaultValue={filter.archived ?? ""}>
          <option value="">Hidden</option>
          <option value="include">Shown too</option>
          <option value="only">Only archived</option>
        </select>
      </label>
      <button type="submit">Filter</button>
      {hasFilters && (
        <button
          type="button"
          onClick={(event) => {
            event.currentTarget.form?.reset();
            onChange({ order: filter.order });
          }}
        >
          Clear filters
        </button>
      )}
      <label htmlFor={`${id}-order`}>
        Order
        <select
          id={`${id}-order`}
          value={filter.order ?? "newest"}
          onChange={(event) =>
            onChange({ ...filter, order: event.target.value === "oldest" ? "oldest" : "newest" })
          }
        >
          <option value="newest">Newest wait first</option>
          <option value="oldest">Longest wait first</option>
        </select>
      </label>
    </form>
  );
}
