//! The statuses the store keeps as text, as enums: code branches on these, never on the
//! strings (the text is what the database and the wire carry).

/// Declares a status enum with its stored text, `as_str` and `parse`.
macro_rules! status {
    ($(#[$doc:meta])* $name:ident { $($variant:ident = $text:literal),+ $(,)? }) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum $name {
            $($variant),+
        }

        impl $name {
            /// The stored (and wire) text.
            #[must_use]
            pub const fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text),+
                }
            }

            /// The status a stored text names; None for any other text.
            #[must_use]
            pub fn parse(text: &str) -> Option<$name> {
                match text {
                    $($text => Some($name::$variant),)+
                    _ => None,
                }
            }
        }

        impl $name {
            /// Whether `text` names one of `any`.
            #[must_use]
            pub fn is_in(text: &str, any: &[$name]) -> bool {
                $name::parse(text).is_some_and(|s| any.contains(&s))
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl PartialEq<$name> for String {
            fn eq(&self, other: &$name) -> bool {
                self == other.as_str()
            }
        }

        impl PartialEq<$name> for str {
            fn eq(&self, other: &$name) -> bool {
                self == other.as_str()
            }
        }
    };
}

status!(
    /// A set's status (SPEC 5): open until accepted, active while played.
    SetStatus {
        Open = "open",
        Active = "active",
        Finished = "finished",
        Cancelled = "cancelled",
        Declined = "declined",
        Expired = "expired",
    }
);

status!(
    /// A game's status: game 2 is pending until game 1 ends.
    GameStatus {
        Pending = "pending",
        Active = "active",
        Finished = "finished",
    }
);

status!(
    /// A tournament's status (issue 12); `proposed`: a match (issue 18) waiting for the other
    /// owner's accept.
    TournamentStatus {
        Proposed = "proposed",
        Created = "created",
        Running = "running",
        Paused = "paused",
        Finished = "finished",
        Cancelled = "cancelled",
    }
);

status!(
    /// A tournament pairing's status; `absent`: left out of its round, `bye`: no opponent.
    PairingStatus {
        Pending = "pending",
        Playing = "playing",
        Finished = "finished",
        Bye = "bye",
        Forfeit = "forfeit",
        Absent = "absent",
        Cancelled = "cancelled",
    }
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_status_reads_back_from_its_own_text_and_compares_with_a_stored_string() {
        for s in [
            SetStatus::Open,
            SetStatus::Active,
            SetStatus::Finished,
            SetStatus::Cancelled,
            SetStatus::Declined,
            SetStatus::Expired,
        ] {
            assert_eq!(SetStatus::parse(s.as_str()), Some(s));
        }
        assert_eq!(PairingStatus::parse("absent"), Some(PairingStatus::Absent));
        assert_eq!(GameStatus::parse("over"), None);
        let stored = |t: &str| t.to_string();
        assert!(stored("running") == TournamentStatus::Running);
        assert!(stored("paused") != TournamentStatus::Running);
        assert_eq!(GameStatus::Pending.to_string(), "pending");
    }
}
