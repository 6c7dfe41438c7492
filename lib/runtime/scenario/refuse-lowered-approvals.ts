import { BUILT_IN_TOOLS } from "../tools/built-in-tools";
import { InvalidScenarioError } from "./parse-scenario";
import type { Scenario } from "./scenario-schema";

/**
 * Under separation of duties the person who starts a run may not approve its
 * gated calls; a scenario that switched those gates off would leave nothing
 * for anyone else to approve. So while it applies (for every run, or by the
 * scenario's own policy), a scenario may raise a built-in tool's approval but
 * never lower one that needs approval by default. (A scenario's own custom
 * tools are its own to set; MCP servers' tools can never be lowered by a
 * scenario.) Throws {@link InvalidScenarioError} naming each such field.
 */
export function refuseLoweredApprovals(
  scenario: Scenario,
  options: { requireDistinctApprover: boolean },
): void {
  const fromPolicy = scenario.policy?.requireDistinctApprover === true;
  if (!options.requireDistinctApprover && !fromPolicy) return;
  const why = options.requireDistinctApprover
    ? "this server requires a distinct approver for every run (PLAYGROUND_REQUIRE_DISTINCT_APPROVER=1)"
    : "the scenario's policy.requireDistinctApprover is on";
  const issues = BUILT_IN_TOOLS.flatMap((tool) =>
    tool.approval !== "never" &&
    Object.hasOwn(scenario.approvals, tool.name) &&
    scenario.approvals[tool.name] === "never"
      ? [
          {
            path: `approvals.${tool.name}`,
            message: `cannot be "never": ${tool.name} needs approval by default, and ${why}, so whoever starts a run may not remove a gate someone else must approve`,
          },
        ]
      : [],
  );
  if (issues.length > 0) throw new InvalidScenarioError(issues);
}
