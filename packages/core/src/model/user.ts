export interface UserRecord {
  readonly id: string;
  readonly email: string;
  readonly createdAt: Date;
}
