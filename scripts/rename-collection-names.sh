#!/usr/bin/env bash
# Issue 28 item 5: one name per concept. A collection is declared once (CollectionDeclaration: what the
# stores keep); every other type that carried "collection" in its name is named after its role:
#
#   UserCollection   (services/collections/declare.ts)  -> CollectionSchema
#       a user's declaration as checked: its CollectionDeclaration (`.declaration`) and the JSON Schema
#       the HTTP layer checks records with (properties, required, description)
#   RecordCollection (data/collection.ts)                -> ServedCollection
#       a collection as a service serves it beyond REST: wire schema, NDJSON line, line check, query model,
#       the store it reads (import, export, seed files, the change feed, GraphQL)
#   recordCollection (services/collections/records.ts)   -> servedCollection
#   Collection<R, F> (records/page.ts)                    -> ListSource<R, F>
#       what a page or a stream is read from: a queryable store and its query model
#   Collection       (services/records/routes.ts)        -> RouteContext
#       what every record handler of one collection shares, computed once at registration
#
# Run from the repository root after merging; then `npx tsc -p tsconfig.json --noEmit` and the lint.
# Idempotent: a second run changes nothing. Touches identifiers only (never a JSON or wire string:
# none of these names is in an answer).
set -euo pipefail
cd "$(dirname "$0")/.."

files () { git ls-files -- src test web bench docs README.md DEVELOPERS.md | grep -E '\.(ts|mts|mjs|js|md)$' || true; }

# 1. Whole-word identifiers, everywhere (code and docs).
files | xargs perl -pi -e '
  s/\bUserCollection\b/CollectionSchema/g;
  s/\bRecordCollection\b/ServedCollection/g;
  s/\brecordCollection\b/servedCollection/g;
'

# 2. records/page.ts's Collection<R, F>: only in the modules that name that type (the word alone is prose elsewhere).
for f in $(git grep -l -E "type Collection\b|type \{ Collection, Page \}|interface Collection<|Collection<R, F>" -- src test | grep -v '^src/services/records/routes.ts$' || true); do
  perl -pi -e '
    s/\binterface Collection</interface ListSource</g;
    s/\bCollection<(R|StoredRecord|unknown)/ListSource<$1/g;
    s/\btype Collection\b/type ListSource/g;
    s/export type \{ Collection, Page \}/export type { ListSource, Page }/g;
  ' "$f"
done

# 3. services/records/routes.ts's Collection: the handlers' shared context.
for f in $(git grep -l -E "from '\.\./records/routes\.js'|from '\./routes\.js'" -- src/services | sort -u) src/services/records/routes.ts; do
  perl -pi -e '
    s/\binterface Collection \{/interface RouteContext {/g;
    s/(?<=: )Collection\b(?!<)/RouteContext/g;
    s/\btype Collection\b(?=[,\s}])/type RouteContext/g if /records\/routes\.js/;
  ' "$f"
done

# 4. The glossary of docs/architecture.md (once), before "## A request's path".
if ! grep -q '^## Glossary' docs/architecture.md; then
  perl -0pi -e 's/\n## A request.s path\n/\n## Glossary\n\nOne name per concept. A **collection** is a named set of records of one shape; the record engine keeps any\nof them alike. Its **`CollectionDeclaration`** (`src\/domain\/collection.ts`) is all the stores know of it: name,\ntable, typed fields, id kind, write-by-id policy. A service brings its collections\x27 declarations in its\ndescriptor (`declarations`); the stores open exactly those, the domain names none. A user\x27s declaration, as\nchecked from `--collections`, is a **`CollectionSchema`** (`src\/services\/collections\/declare.ts`): its\n`CollectionDeclaration` and the JSON Schema the HTTP layer checks records with. A **`ServedCollection`**\n(`src\/data\/collection.ts`) is a collection as a service serves it beyond REST: wire schema, NDJSON line and\nits check, query model, the store it reads (import, export, seed files, the change feed, GraphQL). A\n**`ListSource`** (`src\/records\/page.ts`) is what a page or a stream is read from: a queryable store and its\nquery model. A **`RouteContext`** (`src\/services\/records\/routes.ts`) is what the record handlers of one\ncollection share, computed once at registration from its **wire policy** (`WirePolicy`). A **typed view**\n(`RecordView`, `src\/services\/records\/view.ts`) is a built-in service\x27s view of its record store with its\nown record type (`StudentStore`, `AddressStore`).\n\n## A request\x27s path\n/' docs/architecture.md
fi
