// The apps' TypeScript rules (Next's), for code the apps compile as their own.
import { defineConfig, globalIgnores } from "eslint/config";
import nextTs from "eslint-config-next/typescript";

export default defineConfig([...nextTs, globalIgnores(["node_modules/**"])]);
