package sqlite

import (
	"database/sql/driver"
	"strings"
	"sync"

	modernc "modernc.org/sqlite"
)

// containsFunc is ledger_contains(text, needle): whether text, lower-cased
// the way Go lower-cases, contains needle (already lower-cased). It checks
// queries too short for the trigram index (1 or 2 characters), row by row
// within a listing's scan bound. SQLite's own lower() folds ASCII only.
const containsFunc = "ledger_contains"

var registerFunctions = sync.OnceValue(func() error {
	return modernc.RegisterDeterministicScalarFunction(containsFunc, 2,
		func(_ *modernc.FunctionContext, args []driver.Value) (driver.Value, error) {
			text, _ := args[0].(string)
			needle, _ := args[1].(string)
			if strings.Contains(strings.ToLower(text), needle) {
				return int64(1), nil
			}
			return int64(0), nil
		})
})
