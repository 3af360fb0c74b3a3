package board

import (
	"context"
	"errors"
	"strconv"
)

// Changes is what an open page compares to decide whether to fetch itself
// again: a short opaque text that differs after every change the page
// shows. It is no secret (an event id or a version), but it is only given
// to a caller who may read what it stands for.
type Changes struct {
	Marker string `json:"marker"`
}

// WorkspaceChanges answers the marker of a workspace's board. A workspace
// the caller may not read does not exist, as on every read.
func (s *Service) WorkspaceChanges(ctx context.Context, in WorkspaceInput) (Changes, error) {
	if err := ValidateSlug(in.Workspace); err != nil {
		return Changes{}, err
	}
	m, err := s.store.WorkspaceMarker(ctx, in.Workspace, readablePolicies(PrincipalFrom(ctx)))
	var denied *PolicyError
	switch {
	case errors.Is(err, ErrNotFound), errors.As(err, &denied):
		return Changes{}, workspaceNotFound(in.Workspace)
	case err != nil:
		return Changes{}, s.storeFailure(err)
	}
	// "w" keeps a workspace's marker apart from a ticket's; "w-" is a
	// workspace that has no event yet.
	return Changes{Marker: "w-" + m}, nil
}

// TicketChanges answers the marker of a ticket's page: its version.
func (s *Service) TicketChanges(ctx context.Context, in TicketIDInput) (Changes, error) {
	if _, _, err := ParseTicketID(in.ID); err != nil {
		return Changes{}, err
	}
	v, err := s.store.TicketMarker(ctx, in.ID, readablePolicies(PrincipalFrom(ctx)))
	if err := s.activityFailure(err, in.ID); err != nil {
		return Changes{}, err
	}
	return Changes{Marker: "t-" + strconv.FormatInt(v, 10)}, nil
}
