CREATE TABLE nonoforge_version (
	version_num VARCHAR(32) NOT NULL, 
	CONSTRAINT nonoforge_version_pkc PRIMARY KEY (version_num)
);

CREATE TABLE sources (
	id INTEGER NOT NULL, 
	name VARCHAR(200) NOT NULL, 
	url TEXT, 
	licence TEXT, 
	CONSTRAINT pk_sources PRIMARY KEY (id), 
	CONSTRAINT uq_sources_name UNIQUE (name)
);

CREATE TABLE puzzles (
	id INTEGER NOT NULL, 
	"key" VARCHAR(16) NOT NULL, 
	width INTEGER NOT NULL, 
	height INTEGER NOT NULL, 
	colors INTEGER NOT NULL, 
	rofl BLOB NOT NULL, 
	has_goal BOOLEAN NOT NULL, 
	first_seen DATETIME NOT NULL, givens TEXT, 
	CONSTRAINT pk_puzzles PRIMARY KEY (id), 
	CONSTRAINT uq_puzzles_key UNIQUE ("key")
);

CREATE TABLE provenance (
	id INTEGER NOT NULL, 
	puzzle_id INTEGER NOT NULL, 
	source VARCHAR(200) NOT NULL, 
	source_id VARCHAR(200), 
	title TEXT, 
	author TEXT, 
	copyright TEXT, 
	licence TEXT, 
	raw BLOB, 
	added DATETIME NOT NULL, note TEXT, extra JSON, site VARCHAR(100) DEFAULT 'unknown' NOT NULL, 
	CONSTRAINT pk_provenance PRIMARY KEY (id), 
	CONSTRAINT fk_provenance_puzzle_id_puzzles FOREIGN KEY(puzzle_id) REFERENCES puzzles (id) ON DELETE CASCADE, 
	CONSTRAINT uq_provenance_source_source_id UNIQUE (source, source_id)
);

CREATE TABLE results (
	id INTEGER NOT NULL, 
	puzzle_id INTEGER NOT NULL, 
	solver_version VARCHAR(64) NOT NULL, 
	status VARCHAR(32), 
	technique VARCHAR(64), 
	effort JSON, 
	time_s FLOAT, 
	times JSON, 
	score FLOAT, 
	grade INTEGER, 
	rated_at DATETIME NOT NULL, human JSON, human_score FLOAT, human_grade INTEGER, 
	CONSTRAINT pk_results PRIMARY KEY (id), 
	CONSTRAINT fk_results_puzzle_id_puzzles FOREIGN KEY(puzzle_id) REFERENCES puzzles (id) ON DELETE CASCADE, 
	CONSTRAINT uq_results_puzzle_id_solver_version UNIQUE (puzzle_id, solver_version)
);

CREATE TABLE collections (
	id INTEGER NOT NULL, 
	name VARCHAR(200) NOT NULL, 
	created DATETIME NOT NULL, 
	params JSON, 
	CONSTRAINT pk_collections PRIMARY KEY (id), 
	CONSTRAINT uq_collections_name UNIQUE (name)
);

CREATE TABLE collection_members (
	collection_id INTEGER NOT NULL, 
	position INTEGER NOT NULL, 
	puzzle_id INTEGER NOT NULL, 
	CONSTRAINT pk_collection_members PRIMARY KEY (collection_id, position), 
	CONSTRAINT fk_collection_members_collection_id_collections FOREIGN KEY(collection_id) REFERENCES collections (id) ON DELETE CASCADE, 
	CONSTRAINT fk_collection_members_puzzle_id_puzzles FOREIGN KEY(puzzle_id) REFERENCES puzzles (id) ON DELETE CASCADE
);

CREATE TABLE fetch_log (
	id INTEGER NOT NULL, 
	site VARCHAR(100) NOT NULL, 
	item VARCHAR(200) NOT NULL, 
	status VARCHAR(16) NOT NULL, 
	reason TEXT, 
	attempts INTEGER NOT NULL, 
	puzzle_key VARCHAR(16), 
	updated DATETIME NOT NULL, 
	CONSTRAINT pk_fetch_log PRIMARY KEY (id), 
	CONSTRAINT uq_fetch_log_site_item UNIQUE (site, item), 
	CONSTRAINT ck_fetch_log_ck_fetch_log_status CHECK (status IN ('done', 'missing', 'failed'))
);

CREATE TABLE difficulty_models (
	solver_version VARCHAR(64) NOT NULL, 
	model JSON NOT NULL, 
	updated DATETIME NOT NULL, 
	CONSTRAINT pk_difficulty_models PRIMARY KEY (solver_version)
);

CREATE INDEX ix_puzzles_colors ON puzzles (colors);

CREATE INDEX ix_provenance_puzzle_id ON provenance (puzzle_id);

CREATE INDEX ix_provenance_source ON provenance (source);

CREATE INDEX ix_results_version_grade ON results (solver_version, grade);

CREATE INDEX ix_collection_members_puzzle_id ON collection_members (puzzle_id);

CREATE INDEX ix_fetch_log_site_status ON fetch_log (site, status);

CREATE INDEX ix_results_version_grade_score ON results (solver_version, grade, score, puzzle_id);

CREATE INDEX ix_results_version_human_grade_score ON results (solver_version, human_grade, human_score, puzzle_id);

CREATE INDEX ix_puzzles_size ON puzzles (width, height, id);

CREATE INDEX ix_provenance_site_puzzle ON provenance (site, puzzle_id);

CREATE INDEX ix_results_version_rated ON results (solver_version, rated_at);

