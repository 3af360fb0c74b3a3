package board

// Transferring connected agents (export --with-people): the grants a person
// approved, their live tokens (hashes only) and the clients the grants
// name, so that an agent keeps working against the new store with the
// tokens it holds. Authorization codes stay: they live minutes.

// SameOAuthGrant says whether two grants are the same approval: who, for
// which client, agent, resource and scope, made when. Its last use, expiry
// and revocation move on as it is used, so a grant an earlier run put and
// the agent has used since is still the same one.
func SameOAuthGrant(a, b OAuthGrant) bool {
	return a.ID == b.ID && a.ClientID == b.ClientID && a.ClientName == b.ClientName && a.Handle == b.Handle &&
		a.Agent == b.Agent && a.Resource == b.Resource && a.Scope == b.Scope && a.CreatedAt.Equal(b.CreatedAt)
}

// SameOAuthToken says whether two tokens are the same token of the same
// grant; its use (a refresh token exchanged since) is not compared.
func SameOAuthToken(a, b OAuthToken) bool {
	return a.Hash == b.Hash && a.GrantID == b.GrantID && a.Kind == b.Kind && a.CreatedAt.Equal(b.CreatedAt) &&
		a.ExpiresAt.Equal(b.ExpiresAt)
}
