package oauth

import (
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// serverMetadataDoc is RFC 8414 metadata: the SDK's type, whose jwks_uri is
// shadowed by an omitempty field (this server signs nothing, and an empty
// jwks_uri is not a URL that clients can validate).
type serverMetadataDoc struct {
	oauthex.AuthServerMeta
	JWKSURI string `json:"jwks_uri,omitempty"`
}

// ServerMetadata is what /.well-known/oauth-authorization-server answers.
func (s *Server) ServerMetadata() oauthex.AuthServerMeta {
	return oauthex.AuthServerMeta{
		Issuer:                                     s.issuer,
		AuthorizationEndpoint:                      s.issuer + PathAuthorize,
		TokenEndpoint:                              s.issuer + PathToken,
		RegistrationEndpoint:                       s.issuer + PathRegister,
		RevocationEndpoint:                         s.issuer + PathRevoke,
		ResponseTypesSupported:                     []string{"code"},
		ResponseModesSupported:                     []string{"query"},
		GrantTypesSupported:                        []string{"authorization_code", "refresh_token"},
		TokenEndpointAuthMethodsSupported:          []string{"none"},
		RevocationEndpointAuthMethodsSupported:     []string{"none"},
		CodeChallengeMethodsSupported:              []string{"S256"},
		ClientIDMetadataDocumentSupported:          true,
		AuthorizationResponseIssParameterSupported: true,
	}
}

func (s *Server) serverMetadata(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD, OPTIONS")
		writeError(w, newError(http.StatusMethodNotAllowed, errInvalidRequest, "use GET"))
		return
	}
	w.Header().Set("Cache-Control", "public, max-age=300")
	w.Header().Set("Content-Type", "application/json")
	writeBody(w, serverMetadataDoc{AuthServerMeta: s.ServerMetadata()})
}

// ResourceMetadata is RFC 9728 metadata of the resource at path below the
// issuer: "/mcp" for MCP, "" for the whole server (MCP and REST).
func (s *Server) ResourceMetadata(path string) *oauthex.ProtectedResourceMetadata {
	return &oauthex.ProtectedResourceMetadata{
		Resource:               s.issuer + path,
		AuthorizationServers:   []string{s.issuer},
		BearerMethodsSupported: []string{"header"},
		ResourceName:           "ticket-ledger",
		ResourceDocumentation:  s.issuer + "/",
	}
}

// resourceMetadata serves the document through the SDK's handler (CORS for
// any origin, GET only).
func (s *Server) resourceMetadata(path string) http.Handler {
	return auth.ProtectedResourceMetadataHandler(s.ResourceMetadata(path))
}
