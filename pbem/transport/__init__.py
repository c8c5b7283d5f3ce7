"""Mail transports, the only code that opens sockets: the IMAP intake, the SMTP listener,
the SMTP and Maildir senders. The daemon uses them; the service never does."""
