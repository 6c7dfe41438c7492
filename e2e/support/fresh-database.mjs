// Makes the checks' server's database fresh on the Postgres server (playwright.config.ts): dropped if
// an earlier run left it, then created empty, so the lane starts from nothing as the PGlite lane does.
// The server's own start-up migrates it.
import postgres from "postgres";

const url = new URL(process.env.DATABASE_URL ?? "");
const name = decodeURIComponent(url.pathname.slice(1));
url.pathname = "/postgres";
const admin = postgres(url.toString(), { max: 1, onnotice: () => {} });
try {
  await admin.unsafe(`drop database if exists "${name.replaceAll('"', '""')}" with (force)`);
  await admin.unsafe(`create database "${name.replaceAll('"', '""')}"`);
} finally {
  await admin.end({ timeout: 5 });
}
