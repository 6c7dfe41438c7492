export default function HomePage() {
  return (
    <article className="intro">
      <h1>Run, watch and approve an agent&rsquo;s tool calls</h1>
      <p className="lead">
        Tool Playground executes the parallel tool-call batches an LLM agent emits, safely and without wasted
        inference, and puts a human in front of every call that needs one.
      </p>
      <ul className="pillars" aria-label="What the runtime guarantees">
        <li>
          <h2>Waves</h2>
          <p>
            An oversized batch of pure reads runs in waves of at most the parallel cap, in order, instead of
            paying the model to regenerate it.
          </p>
        </li>
        <li>
          <h2>Ordered barriers</h2>
          <p>
            An approval-gated call is a barrier: the calls before it run, the run waits for a human, and the
            calls after it keep their original payloads.
          </p>
        </li>
        <li>
          <h2>Turn-bound decisions</h2>
          <p>
            Every approval names the exact turn that was shown, is checked after an atomic claim, and a write
            whose approval could not be audited never runs.
          </p>
        </li>
      </ul>
    </article>
  );
}
