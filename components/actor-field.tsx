"use client";

import { useActorName } from "./use-actor-name";

/** The name decisions are recorded under (SPEC §5 audit: actor). */
export function ActorField() {
  const [name, setName] = useActorName();
  return (
    <label className="actor-field">
      Deciding as
      <input
        value={name}
        onChange={(event) => setName(event.target.value)}
        maxLength={200}
        spellCheck={false}
        autoComplete="off"
      />
    </label>
  );
}
