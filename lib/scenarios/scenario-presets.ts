/**
 * The scenario presets the playground offers: the shared example scenarios and one preset per planning
 * rule of docs/planning-rules.md#the-rules-in-order-the-first-that-applies-wins. Plain data imported
 * statically, so client components can list them; the server validates a preset's scenario like any
 * other before running it.
 */
import deniedWriteInvalidatesRest from "./denied-write-invalidates-rest.json";
import fourteenReadsCapEight from "./fourteen-reads-cap-eight.json";
import mcpMemoryCreateThenRead from "./mcp-memory-create-then-read.json";
import oversizedBatchWithApproval from "./oversized-batch-with-approval.json";
import rule1aOversizedReadsInWaves from "./rules/rule-1a-oversized-reads-in-waves.json";
import rule1bOversizedMixedBatchRepaired from "./rules/rule-1b-oversized-mixed-batch-repaired.json";
import rule2OversizedPayloadRepaired from "./rules/rule-2-oversized-payload-repaired.json";
import rule3TerminalWithSiblingsRepaired from "./rules/rule-3-terminal-with-siblings-repaired.json";
import rule4ApprovalBarriers from "./rules/rule-4-approval-barriers.json";
import rule5TerminalAlone from "./rules/rule-5-terminal-alone.json";
import rule6PlainBatchWithBadCall from "./rules/rule-6-plain-batch-with-bad-call.json";
import slowWavesForLiveView from "./rules/slow-waves-for-live-view.json";
import twoGatesInOneBatch from "./two-gates-in-one-batch.json";
import writeThenReadBack from "./write-then-read-back.json";

export type ScenarioPresetGroup = "Example scenarios" | "Planning rules";

/** A scenario the UI can load with one click. */
export interface ScenarioPreset {
  /** The file name without `.json`; stable, usable in URLs. */
  id: string;
  title: string;
  /** One plain sentence: what the user will see when it runs. */
  summary: string;
  group: ScenarioPresetGroup;
  /** The scenario file's content, not yet validated. */
  scenario: unknown;
}

export const SCENARIO_PRESETS: readonly ScenarioPreset[] = [
  {
    id: "fourteen-reads-cap-eight",
    title: "14 reads at a cap of 8",
    summary: "14 reads at a cap of 8 run as two waves; nothing is regenerated.",
    group: "Example scenarios",
    scenario: fourteenReadsCapEight,
  },
  {
    id: "oversized-batch-with-approval",
    title: "Oversized batch with a gated write",
    summary:
      "A 6-call batch at a cap of 4 that holds a gated write is sent back for repair with nothing run, and the repaired batch of 4 reads runs in one wave.",
    group: "Example scenarios",
    scenario: oversizedBatchWithApproval,
  },
  {
    id: "write-then-read-back",
    title: "Approved write, then read-back",
    summary:
      "The gated write waits for your approval, then the read kept behind it runs and sees the new content.",
    group: "Example scenarios",
    scenario: writeThenReadBack,
  },
  {
    id: "denied-write-invalidates-rest",
    title: "Denied delete invalidates the rest",
    summary:
      "Denying the gated delete invalidates the listing kept behind it, and the model is told so in its next step.",
    group: "Example scenarios",
    scenario: deniedWriteInvalidatesRest,
  },
  {
    id: "two-gates-in-one-batch",
    title: "Two approval gates in one batch",
    summary:
      "A write and a delete in one batch each stop the run for approval in turn, and the reads after each run once it is approved.",
    group: "Example scenarios",
    scenario: twoGatesInOneBatch,
  },
  {
    id: "mcp-memory-create-then-read",
    title: "MCP memory server: create, then read back",
    summary:
      "Needs the operator's MCP server \"memory\" (see docs/mcp.md). Creating an entity waits for your approval, bound to the tool's definition; the read kept behind it then finds the entity.",
    group: "Example scenarios",
    scenario: mcpMemoryCreateThenRead,
  },
  {
    id: "rule-1a-oversized-reads-in-waves",
    title: "Rule 1a: oversized pure reads run in waves",
    summary:
      "10 slow reads at a cap of 4 run as three waves of 4, 4 and 2, one after the other; nothing is regenerated.",
    group: "Planning rules",
    scenario: rule1aOversizedReadsInWaves,
  },
  {
    id: "rule-1b-oversized-mixed-batch-repaired",
    title: "Rule 1b: oversized mixed batch is repaired",
    summary:
      "A 6-call batch at a cap of 4 with a memory write and a gated file write is sent back for repair with nothing run; the model's 4-call repair then runs its reads, the memory write, and stops at the file write for approval.",
    group: "Planning rules",
    scenario: rule1bOversizedMixedBatchRepaired,
  },
  {
    id: "rule-2-oversized-payload-repaired",
    title: "Rule 2: oversized payload is repaired",
    summary:
      "A 3-call batch whose raw payload exceeds the 512-byte limit is sent back for repair with nothing run; the shorter repaired batch runs.",
    group: "Planning rules",
    scenario: rule2OversizedPayloadRepaired,
  },
  {
    id: "rule-3-terminal-with-siblings-repaired",
    title: "Rule 3: finish with a sibling is repaired",
    summary:
      "A finish sent together with a read is sent back for repair with nothing run, then finish alone completes the run.",
    group: "Planning rules",
    scenario: rule3TerminalWithSiblingsRepaired,
  },
  {
    id: "rule-4-approval-barriers",
    title: "Rule 4: approval barriers inside a batch",
    summary:
      "An 8-call batch runs as reads, an approval for a file write, more reads, an approval for a deploy, and final reads, each part after the previous one settled.",
    group: "Planning rules",
    scenario: rule4ApprovalBarriers,
  },
  {
    id: "rule-5-terminal-alone",
    title: "Rule 5: reply continues, finish ends",
    summary: "A lone reply shows its message and the run goes on to a read, then a lone finish completes it.",
    group: "Planning rules",
    scenario: rule5TerminalAlone,
  },
  {
    id: "rule-6-plain-batch-with-bad-call",
    title: "Rule 6: plain batch with bad calls",
    summary:
      "In a 7-call batch the unknown tool and the malformed call are not dispatched while the five valid calls run, the memory write in a wave of its own between the reads.",
    group: "Planning rules",
    scenario: rule6PlainBatchWithBadCall,
  },
  {
    id: "slow-waves-for-live-view",
    title: "Slow waves to watch live",
    summary:
      "12 slow reads at a cap of 3 run as four visible waves, then a second step runs a read, a progress save and another read one after the other: about six seconds of waves, ten in all.",
    group: "Planning rules",
    scenario: slowWavesForLiveView,
  },
];

/** The preset with this id, or undefined. */
export function findPreset(id: string): ScenarioPreset | undefined {
  return SCENARIO_PRESETS.find((preset) => preset.id === id);
}
