ALTER TABLE "approvals" ADD COLUMN "via" text;--> statement-breakpoint
ALTER TABLE "approvals" ADD COLUMN "via_channel" text;--> statement-breakpoint
ALTER TABLE "approvals" ADD CONSTRAINT "approvals_via_check" CHECK (("approvals"."via" is null and "approvals"."via_channel" is null) or ("approvals"."via" in ('link', 'link_alone') and "approvals"."via_channel" is not null));