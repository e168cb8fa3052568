"""The record of dealing: the journal store (`store`, one live controller per journal through `lock`, its
failures explained by `failure`), the jobs it plans (`jobplan`), this computer's deal history (Law 6D2,
`history`), and its readers: run reports (`report`), what happened told in words (`narrative`) and the
deal files a journal's runs dealt (`dealt`).

May import: `dealer.core`, `dealer.language`, `dealer.formats`, `dealer.verify`, `dealer.stats`; never `dealer.dealing`.
"""
